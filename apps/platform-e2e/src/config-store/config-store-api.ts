import type { Permission } from '@comanda/security';
import { provisionClient } from '../support/clients';
import type { TestPlatform } from '../support/platform';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: T;
  text: string;
}

export interface ApiCall {
  body?: unknown;
  /** Sent as it is, with the Content-Type of `headers` (instead of `body` as JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** An integrator of one tenant calling `/entities/...` through the gateway with its own token. */
export interface Integrator {
  clientId: string;
  tenantId: string;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: ApiCall,
  ): Promise<ApiResponse<T>>;
}

export const ALL_CONFIG_GROUP_PERMISSIONS: Permission[] = [
  'configs:read',
  'configs:write',
  'connections:read',
  'connections:write',
  'extensions:read',
  'extensions:write',
];

export async function integrator(
  platform: TestPlatform,
  tenantId: string,
  permissions: Permission[] = ALL_CONFIG_GROUP_PERMISSIONS,
): Promise<Integrator> {
  const client = await provisionClient(platform, { tenantId, permissions });
  return {
    clientId: client.clientId,
    tenantId,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${await client.token()}`,
        'x-api-version': '0',
        ...options.headers,
      };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${platform.baseUrl}${path}`, {
        method,
        headers,
        body:
          options.rawBody ??
          (options.body === undefined ? undefined : JSON.stringify(options.body)),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : undefined) as never,
        text,
      };
    },
  };
}

/** A unique entity slug per test, so tests of one platform never see each other's data. */
let counter = 0;
export function freshEntity(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Date.now().toString(36)}`;
}
