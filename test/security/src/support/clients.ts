import { randomBytes } from 'node:crypto';
import type { PlatformProcess } from './platform-process';

export const V0 = { 'x-api-version': '0' };

export async function tokenFor(
  baseUrl: string,
  tenantId: string,
  credentials: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  if (scope) form.set('scope', scope);
  const response = await fetch(`${baseUrl}/auth/${tenantId}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) {
    throw new Error(`token for ${tenantId}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

const adminTokens = new WeakMap<PlatformProcess, Promise<string>>();

/** A `platform:admin` token, fetched once per platform (attacks may spend the address's budget). */
export function adminToken(platform: PlatformProcess): Promise<string> {
  let token = adminTokens.get(platform);
  if (!token) {
    token = tokenFor(platform.baseUrl, 'platform', platform.admin, 'platform:admin');
    token.catch(() => adminTokens.delete(platform));
    adminTokens.set(platform, token);
  }
  return token;
}

/** An authenticated admin call through the gateway. */
export async function adminCall(
  platform: PlatformProcess,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${platform.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...V0,
      authorization: `Bearer ${await adminToken(platform)}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : JSON.stringify(init.body),
  });
}

/** Asserts an answer is the expected problem+json, with no stack. */
export async function expectProblem(
  response: Response,
  status: number,
): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body).toMatchObject({ status });
  for (const field of ['type', 'title', 'detail']) expect(typeof body[field]).toBe('string');
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules/);
  return body;
}

/** A fresh tenant id, unique per run. */
export function tenantId(prefix = 'sec'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * What every security test asserts after its attack: the process still runs, and a real
 * client is still served (an authenticated admin call answers 200).
 */
export async function expectPlatformServing(platform: PlatformProcess): Promise<void> {
  if (!platform.alive()) throw new Error(`the platform process died:\n${platform.output()}`);
  const token = await adminToken(platform);
  const response = await fetch(`${platform.baseUrl}/admin/tenants`, {
    headers: { ...V0, authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200) {
    throw new Error(`a valid client was refused: ${response.status} ${await response.text()}`);
  }
  if (!platform.alive()) throw new Error(`the platform process died:\n${platform.output()}`);
}
