import { randomBytes } from 'node:crypto';
import type { Deployment } from './deployment';

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

const adminTokens = new WeakMap<Deployment, Promise<string>>();

/** A `platform:admin` token, fetched once per platform (attacks may spend the address's budget). */
export function adminToken(platform: Deployment): Promise<string> {
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
  platform: Deployment,
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
 * What every security test asserts after its attack: every process of the deployment still
 * runs and answers on its own port, the gateway still reaches every service, and a real
 * client is still served (an authenticated admin call answers 200).
 */
export async function expectPlatformServing(deployment: Deployment): Promise<void> {
  const dead = () => deployment.processes.filter((process) => !process.alive());
  const died = (which: string[]) => new Error(`${which.join(', ')} died:\n${deployment.output()}`);
  if (dead().length > 0) throw died(dead().map((process) => process.name));
  const token = await adminToken(deployment);
  const response = await fetch(`${deployment.baseUrl}/admin/tenants`, {
    headers: { ...V0, authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200) {
    throw new Error(`a valid client was refused: ${response.status} ${await response.text()}`);
  }
  for (const service of deployment.internal) {
    const ready = await fetch(`${service.url}/health/ready`, {
      signal: AbortSignal.timeout(5000),
    }).catch((error: Error) => error);
    if (ready instanceof Error || ready.status !== 200) {
      const answer = ready instanceof Error ? ready.message : ready.status;
      throw new Error(`${service.name} does not answer on its own port: ${answer}`);
    }
  }
  if (deployment.internal.length > 0) {
    const upstreams = await fetch(`${deployment.baseUrl}/health/upstreams`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    });
    const body = (await upstreams.json()) as unknown;
    const expected = Object.fromEntries(deployment.internal.map((service) => [service.name, 'up']));
    expect({ status: upstreams.status, body }).toEqual({
      status: 200,
      body: { status: 'ok', upstreams: expected },
    });
  }
  if (dead().length > 0) throw died(dead().map((process) => process.name));
}
