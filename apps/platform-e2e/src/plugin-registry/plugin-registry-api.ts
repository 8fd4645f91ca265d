import type { Permission } from '@comanda/security';
import { provisionClient } from '../support/clients';
import type { TestPlatform } from '../support/platform';

export interface PluginResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  /** The body's exact bytes. */
  bytes: Buffer;
  /** Parsed JSON when the body is JSON, else undefined. */
  json: T;
}

export interface PluginCall {
  /** A string is sent as is (with `contentType`, default text/plain); anything else as JSON. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A frontend team of one tenant calling `/frontend/plugins/...` through the gateway. */
export interface PluginTeam {
  tenantId: string;
  clientId: string;
  token(): Promise<string>;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: PluginCall,
  ): Promise<PluginResponse<T>>;
  uploadCode(name: string, version: string, code: string | Buffer): Promise<PluginResponse>;
  uploadManifest(name: string, manifest: Record<string, unknown>): Promise<PluginResponse>;
  code(name: string, version: string, headers?: Record<string, string>): Promise<PluginResponse>;
}

export const PLUGIN_PERMISSIONS: Permission[] = ['plugins:read', 'plugins:write'];

export async function pluginTeam(
  platform: TestPlatform,
  tenantId: string,
  permissions: Permission[] = PLUGIN_PERMISSIONS,
): Promise<PluginTeam> {
  const client = await provisionClient(platform, { tenantId, permissions });
  const call: PluginTeam['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${await client.token()}`,
      'x-api-version': '0',
      ...options.headers,
    };
    let body: string | Buffer | undefined;
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      headers['content-type'] = options.contentType ?? 'text/plain; charset=utf-8';
      body = options.body;
    } else if (options.body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${platform.baseUrl}${path}`, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    const isJson = /json/.test(response.headers.get('content-type') ?? '') && bytes.length > 0;
    return {
      status: response.status,
      headers: response.headers,
      bytes,
      json: (isJson ? JSON.parse(bytes.toString('utf8')) : undefined) as never,
    };
  };
  return {
    tenantId,
    clientId: client.clientId,
    token: () => client.token(),
    call,
    uploadCode: (name, version, code) =>
      call('POST', `/frontend/plugins?name=${name}&version=${encodeURIComponent(version)}`, {
        body: code,
      }),
    uploadManifest: (name, manifest) =>
      call('POST', `/frontend/plugins/manifest?name=${name}`, { body: manifest }),
    code: (name, version, headers) =>
      call('GET', `/frontend/plugins/${name}/versions/${encodeURIComponent(version)}/code`, {
        headers,
      }),
  };
}

/** A plugin name per test, so tests sharing a platform never see each other's plugins. */
let counter = 0;
export function freshPlugin(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Date.now().toString(36)}`;
}

export function pluginCode(marker: string): string {
  return `export default async function plugin(context) {\n  context.render(${JSON.stringify(marker)});\n}\n`;
}

export function manifestFor(version: string, parameters: unknown[] = []): Record<string, unknown> {
  return { version, description: `version ${version}`, parameters };
}
