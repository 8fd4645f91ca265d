import type { Permission } from '@comanda/security';
import type { TestPlatform } from './platform';

/** What the token endpoint answers on success (the spec's token response). */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

export interface ProvisionedClient {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  /** A token for the tenant (cached per scope); `scope` narrows it, absent: all granted. */
  token(scope?: string | Permission[]): Promise<string>;
}

export interface ClientRequest {
  tenantId: string;
  permissions: Permission[];
  personalData?: boolean;
  environment?: 'test' | 'production';
  /** More tenants the client is granted besides `tenantId`. */
  extraTenantIds?: string[];
}

/** `POST {baseUrl}/auth/{tenant}/connect/token` with form-field client authentication. */
export async function requestToken(
  baseUrl: string,
  tenantId: string,
  credentials: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<Response> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  if (scope !== undefined) form.set('scope', scope);
  return fetch(`${baseUrl}/auth/${tenantId}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
}

async function tokenOf(
  baseUrl: string,
  tenantId: string,
  credentials: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const response = await requestToken(baseUrl, tenantId, credentials, scope);
  const body = (await response.json()) as TokenResponse & {
    error?: string;
    error_description?: string;
  };
  if (response.status !== 200) {
    throw new Error(
      `token request for ${tenantId} failed: ${response.status} ${body.error}: ${body.error_description}`,
    );
  }
  return body.access_token;
}

const adminTokens = new WeakMap<TestPlatform, Promise<string>>();

/** A `platform:admin` token of the bootstrapped admin client (cached per platform). */
export function adminToken(platform: TestPlatform): Promise<string> {
  let token = adminTokens.get(platform);
  if (!token) {
    token = tokenOf(platform.baseUrl, 'platform', platform.admin, 'platform:admin');
    token.catch(() => adminTokens.delete(platform));
    adminTokens.set(platform, token);
  }
  return token;
}

/** Calls the admin API through the gateway; answers status and parsed body. */
export async function adminCall<T = unknown>(
  platform: TestPlatform,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await adminToken(platform)}`,
      'x-api-version': '0',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : undefined) as T,
    headers: response.headers,
  };
}

/** Creates the tenant unless it exists. */
export async function ensureTenant(platform: TestPlatform, tenantId: string): Promise<void> {
  const created = await adminCall(platform, 'POST', '/admin/tenants', {
    id: tenantId,
    name: `Tenant ${tenantId}`,
  });
  if (created.status !== 201 && created.status !== 409) {
    throw new Error(
      `creating tenant ${tenantId} failed: ${created.status} ${JSON.stringify(created.body)}`,
    );
  }
}

/**
 * An API client of `tenantId` (created if needed) with exactly these permissions, made
 * through the admin API as support staff would.
 */
export async function provisionClient(
  platform: TestPlatform,
  request: ClientRequest,
): Promise<ProvisionedClient> {
  const tenantIds = [request.tenantId, ...(request.extraTenantIds ?? [])];
  for (const tenantId of tenantIds) await ensureTenant(platform, tenantId);
  const created = await adminCall<{ clientId: string; clientSecret: string }>(
    platform,
    'POST',
    '/admin/clients',
    {
      name: `e2e client of ${request.tenantId}`,
      tenantIds,
      environment: request.environment ?? 'test',
      permissions: request.permissions,
      personalData: request.personalData ?? false,
      contacts: { primary: 'ops@example.com', secondary: '+41 44 000 00 00' },
      useCase: 'end-to-end test',
    },
  );
  if (created.status !== 201) {
    throw new Error(`creating a client failed: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const credentials = created.body;
  const tokens = new Map<string, Promise<string>>();
  return {
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    tenantId: request.tenantId,
    token(scope) {
      const asString = Array.isArray(scope) ? scope.join(' ') : scope;
      const key = asString ?? '*';
      let token = tokens.get(key);
      if (!token) {
        token = tokenOf(platform.baseUrl, request.tenantId, credentials, asString);
        token.catch(() => tokens.delete(key));
        tokens.set(key, token);
      }
      return token;
    },
  };
}
