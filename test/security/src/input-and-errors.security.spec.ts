import { readFileSync } from 'node:fs';
import {
  AUTH_BODY_LIMIT_BYTES,
  DEFAULT_BODY_LIMIT_BYTES,
  NOTIFICATIONS_BODY_LIMIT_BYTES,
} from '@comanda/contracts';
import { MAX_IDENTIFIER_LENGTH } from '@comanda/http';
import { PLUGIN_REGISTRY_BODY_LIMIT_BYTES } from '@comanda/service-plugin-registry';
import { waitFor } from '@comanda/testing';
import {
  adminCall,
  adminToken,
  expectPlatformServing,
  expectProblem,
  tenantId,
  V0,
} from './support/clients';
import { headersOnly } from './support/attacker';
import { internalService, startDeployment, TARGET, type Deployment } from './support/deployment';
import { attackSurfaces, pathWith, type Surface } from './support/surfaces';
import { tenantClientToken } from './support/tenant-client';

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** The partner events route: its body stays raw bytes, checked against a signature first. */
const PARTNER_EVENTS = /^\/notifications\/merchants\/[^/]+\/events$/;
/** OAuth token endpoints: a form body, and errors in OAuth's own JSON (RFC 6749 5.2). */
const TOKEN_ENDPOINT = /\/connect\/token$/;
/**
 * The POS callbacks judge a body they cannot parse after the caller's permission and the
 * order: a finalized order answers 405 whatever the body (the spec's rule; ADR 0065). The
 * sweeps' admin token holds no `orders:placement`, so these routes answer its 403 before
 * looking at the body (what the parser refused never reaches them parsed: json-input-guard);
 * orders.e2e-spec covers their 400 and 405 with a POS's token.
 */
const JUDGED_AFTER_THE_ORDER = /^\/orders\/[^/]+\/pos\/(?:placed|failed)$/;
/**
 * The gateway's own routes under a service's prefix: they take no body and never read one
 * (the gateway parses no body; the services guard theirs).
 */
const GATEWAY_OWN = /^\/admin\/dead-letters(?:\/|$)/;

/** One JSON route of each service, with the body limit that service sets. */
const BODY_ROUTES = [
  { service: 'auth', method: 'POST', path: '/admin/tenants', limit: AUTH_BODY_LIMIT_BYTES },
  {
    service: 'config-store',
    method: 'POST',
    path: '/entities/shop/configs',
    limit: DEFAULT_BODY_LIMIT_BYTES,
  },
  {
    service: 'plugin-registry',
    method: 'POST',
    path: '/frontend/plugins/configs',
    limit: PLUGIN_REGISTRY_BODY_LIMIT_BYTES,
  },
  { service: 'orders', method: 'POST', path: '/baskets', limit: DEFAULT_BODY_LIMIT_BYTES },
  {
    service: 'payments',
    method: 'PUT',
    path: '/payments/merchants/m-1',
    limit: DEFAULT_BODY_LIMIT_BYTES,
  },
  {
    service: 'notifications',
    method: 'POST',
    path: '/notifications/merchants/m-1/events',
    limit: NOTIFICATIONS_BODY_LIMIT_BYTES,
  },
];

/** What a request gave: its status and body, or how the connection failed. */
async function attempt(
  url: string,
  init: RequestInit,
): Promise<{ status: number; type: string; text: string } | { failed: string }> {
  try {
    const response = await fetch(url, init);
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { failed: cause?.code ?? cause?.message ?? String(error) };
  }
}

describe('rows 6-9 and the low rows: bodies, input, operational endpoints and errors', () => {
  let deployment: Deployment;
  let surfaces: Surface[];
  let token: string;

  beforeAll(async () => {
    deployment = await startDeployment('input', { env: { LOG_LEVEL: 'info' } });
    token = await adminToken(deployment);
    surfaces = await attackSurfaces(deployment);
  });
  afterAll(() => deployment?.close());

  /** Distributed: the service's own port and the public one; standalone: the public one. */
  function portsOf(service: string): Array<{ name: string; url: string; direct: boolean }> {
    const ports = [{ name: 'public port', url: deployment.baseUrl, direct: false }];
    if (deployment.internal.length > 0) {
      const own = internalService(deployment, service);
      ports.push({ name: `${service}'s own port`, url: own.url, direct: true });
    }
    return ports;
  }

  describe('row 6 (medium): authentication before the body, one body limit along the path', () => {
    it('refuses 300 unauthenticated 1.95 MB uploads from their headers without holding their bodies', async () => {
      const body = 'x'.repeat(1_950_000);
      // The public port, and distributed, the plugin registry's own (its limit is 2 MiB).
      for (const { name, url, direct } of portsOf('plugin-registry')) {
        const process = direct ? internalService(deployment, 'plugin-registry') : deployment.front;
        const before = rssKiB(process.pid);
        for (let batch = 0; batch < 10; batch++) {
          const statuses = await Promise.all(
            Array.from({ length: 30 }, async () => {
              const response = await fetch(`${url}/frontend/plugins`, {
                method: 'POST',
                headers: { ...V0, 'content-type': 'text/plain' },
                body,
              }).catch(() => undefined);
              await response?.arrayBuffer();
              // The server may close the socket before the whole body went: also a refusal.
              return response?.status ?? 401;
            }),
          );
          expect({ name, statuses: [...new Set(statuses)] }).toEqual({ name, statuses: [401] });
        }
        expect(rssKiB(process.pid) - before).toBeLessThan(200 * 1024);
      }
      await expectPlatformServing(deployment);
    });

    it.each(BODY_ROUTES.filter(({ path }) => !PARTNER_EVENTS.test(path)))(
      'refuses a request to $service without a valid token from its headers, on every port, before any body byte',
      async ({ service, method, path }) => {
        for (const { name, url } of portsOf(service)) {
          for (const authorization of [undefined, 'Bearer forged.token.value']) {
            const answer = await headersOnly(`${url}${path}`, {
              method,
              headers: {
                ...V0,
                'content-type': 'application/json',
                ...(authorization ? { authorization } : {}),
              },
              length: 500_000,
            });
            const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'no answer';
            expect({ name, authorization, status }).toEqual({ name, authorization, status: '401' });
            expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json/i);
            expect(answer).toMatch(/\r\nconnection: close\r\n/i);
          }
        }
        await expectPlatformServing(deployment);
      },
    );

    it('answers a 500 KB admin body with 413 problem+json, never 502', async () => {
      for (const { url } of portsOf('auth')) {
        const response = await fetch(`${url}/admin/tenants`, {
          method: 'POST',
          headers: { ...V0, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: tenantId(), name: 'x'.repeat(500_000) }),
        });
        const problem = await expectProblem(response, 413);
        expect(problem.code).toBe('request.too_large');
      }
      await expectPlatformServing(deployment);
    });

    it.each(BODY_ROUTES)(
      'answers bodies past the limit of $service with a too-large problem on every port (413; 400 in the configuration group, ADR 0053), and smaller ones without a server error',
      async ({ service, method, path, limit }) => {
        const failures: string[] = [];
        for (const { name, url, direct } of portsOf(service)) {
          // The gateway never takes more than its own JSON limit for a service.
          const effective = direct ? limit : Math.min(limit, DEFAULT_BODY_LIMIT_BYTES);
          for (const size of [40_000, 500_000, 1_500_000]) {
            const body = JSON.stringify({ name: 'x'.repeat(size) });
            const answer = await attempt(`${url}${path}`, {
              method,
              headers: {
                ...V0,
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
              },
              body,
            });
            const tooLarge = path.startsWith('/entities/') ? '400 too large' : '413 too large';
            const expected = body.length > effective ? tooLarge : 'no server error';
            const got =
              'failed' in answer
                ? `connection ${answer.failed}`
                : !answer.type.startsWith('application/problem+json')
                  ? `${answer.status} ${answer.type}`
                  : answer.text.includes('"code":"request.too_large"')
                    ? `${answer.status} too large`
                    : answer.status < 500
                      ? 'no server error'
                      : `${answer.status} ${answer.text}`;
            if (got !== expected) failures.push(`${name}, ${size} bytes: ${got}, not ${expected}`);
          }
        }
        expect(failures).toEqual([]);
        await expectPlatformServing(deployment);
      },
    );
  });

  describe('row 7 (medium): one input guard, identifier lengths, 409 on unique violations', () => {
    it('answers JSON nested 10,000 deep with 400, not a stack overflow', async () => {
      const deep = '{"id":"deep","name":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
      const problem = await expectProblem(
        await adminCall(deployment, '/admin/tenants', { method: 'POST', body: deep }),
        400,
      );
      expect(problem).toMatchObject({
        code: 'request.invalid',
        errors: [expect.objectContaining({ path: expect.stringContaining('name') })],
      });
      await expectPlatformServing(deployment);
    });

    it('answers JSON nested 10,000 deep with 400 request.invalid on every operation that takes a body, on every port', async () => {
      const deep = '{"id":"deep","name":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
      const failures: string[] = [];
      let sent = 0;
      for (const surface of surfaces) {
        for (const { method, path, otherBody } of surface.operations) {
          if (method === 'GET' || method === 'DELETE') continue;
          if (surface.process === deployment.front && GATEWAY_OWN.test(path)) continue;
          const answer = await attempt(`${surface.url}${pathWith(path, 'x')}`, {
            method,
            headers: {
              ...V0,
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
            },
            body: deep,
          });
          sent += 1;
          if ('failed' in answer) {
            failures.push(`${surface.name}: ${method} ${path}: connection ${answer.failed}`);
            continue;
          }
          // Refused from its headers before any body is parsed: a route that takes another
          // media type (415; OAuth's invalid_request at the token endpoint); partner events
          // are raw bytes checked against a signature first.
          const guarded =
            answer.status === 400 && (JSON.parse(answer.text) as { code?: string }).code;
          const refusedEarlier =
            (answer.status === 415 && otherBody) ||
            (guarded === 'oauth.invalid_request' && TOKEN_ENDPOINT.test(path)) ||
            (answer.status === 401 && PARTNER_EVENTS.test(path)) ||
            (answer.status === 403 && JUDGED_AFTER_THE_ORDER.test(path));
          if (!refusedEarlier && guarded !== 'request.invalid') {
            failures.push(
              `${surface.name}: ${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`,
            );
          }
        }
      }
      expect(sent).toBeGreaterThan(20);
      expect(failures).toEqual([]);
      await expectPlatformServing(deployment);
    });

    it('answers two concurrent creates of one tenant id with one 201 and one 409, on every port', async () => {
      for (const { url } of portsOf('auth')) {
        const id = tenantId('race');
        const responses = await Promise.all(
          [1, 2].map(() =>
            fetch(`${url}/admin/tenants`, {
              method: 'POST',
              headers: {
                ...V0,
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({ id, name: 'Race' }),
            }),
          ),
        );
        const statuses = responses.map((response) => response.status).sort();
        expect(statuses).toEqual([201, 409]);
        const conflict = responses.find((response) => response.status === 409) as Response;
        await expectProblem(conflict, 409);
      }
      await expectPlatformServing(deployment);
    });

    it('answers a 3,000-character client_id with 400, on the token endpoint and the admin API', async () => {
      const long = 'c'.repeat(3000);
      for (const { url } of portsOf('auth')) {
        const tokenAnswer = await fetch(`${url}/auth/platform/connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${long}&client_secret=whatever`,
        });
        expect(tokenAnswer.status).toBe(400);
        const admin = await fetch(`${url}/admin/clients/${long}`, {
          headers: { ...V0, authorization: `Bearer ${token}` },
        });
        // Past any identifier's length a path names nothing: 404, or 414 when the URL is too long.
        expect([400, 404, 414]).toContain(admin.status);
        expect(admin.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      await expectPlatformServing(deployment);
    });

    it('answers a path parameter longer than any identifier with a 4xx problem on every operation, on every port', async () => {
      const failures: string[] = [];
      for (const surface of surfaces) {
        for (const { method, path } of surface.operations) {
          if (!path.includes('{')) continue;
          for (const length of [MAX_IDENTIFIER_LENGTH, MAX_IDENTIFIER_LENGTH + 1, 3000]) {
            const hasBody = method !== 'GET' && method !== 'DELETE';
            const answer = await attempt(`${surface.url}${pathWith(path, 'i'.repeat(length))}`, {
              method,
              headers: {
                ...V0,
                authorization: `Bearer ${token}`,
                ...(hasBody ? { 'content-type': 'application/json' } : {}),
              },
              body: hasBody ? '{}' : undefined,
            });
            if ('failed' in answer) {
              failures.push(`${surface.name}: ${method} ${path} (${length}): ${answer.failed}`);
            } else if (answer.status >= 500) {
              failures.push(`${surface.name}: ${method} ${path} (${length}): ${answer.status}`);
            } else if (
              answer.status >= 400 &&
              !answer.type.startsWith('application/problem+json') &&
              !(TOKEN_ENDPOINT.test(path) && /"error":"invalid_request"/.test(answer.text))
            ) {
              failures.push(`${surface.name}: ${method} ${path} (${length}): ${answer.type}`);
            } else if (length > MAX_IDENTIFIER_LENGTH && answer.status < 400) {
              failures.push(`${surface.name}: ${method} ${path} (${length}): ${answer.status}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      await expectPlatformServing(deployment);
    });

    it('reads back an extension whose id has the longest allowed length, and refuses a longer one', async () => {
      const { token: tenantToken } = await tenantClientToken(deployment, [
        'extensions:read',
        'extensions:write',
      ]);
      const headers = {
        ...V0,
        authorization: `Bearer ${tenantToken}`,
        'content-type': 'application/json',
      };
      for (const length of [150, 200]) {
        const id = 'e'.repeat(length);
        const created = await fetch(`${deployment.baseUrl}/entities/shop/extensions`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ id, version: '1', availability: 'Private' }),
        });
        if (created.ok) {
          const read = await fetch(
            `${deployment.baseUrl}/entities/shop/extensions/${id}?include_private=true`,
            { headers },
          );
          expect(read.status).toBe(200);
        } else {
          expect(created.status).toBe(400);
        }
      }
      const tooLong = await fetch(`${deployment.baseUrl}/entities/shop/extensions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ id: 'e'.repeat(201), version: '1', availability: 'Private' }),
      });
      expect(tooLong.status).toBe(400);
      await expectPlatformServing(deployment);
    });
  });

  describe('row 8 (medium): operational endpoints are private on the public port', () => {
    it.each(['/metrics', '/health/upstreams'])(
      'answers %s with 401 without a token, and to platform:admin',
      async (path) => {
        await expectProblem(await fetch(`${deployment.baseUrl}${path}`), 401);
        expect((await adminCall(deployment, path)).status).toBe(200);
        await expectPlatformServing(deployment);
      },
    );

    it('serves no operational endpoint on the public port through another spelling of its path', async () => {
      const spellings = [
        '/metrics/',
        '//metrics',
        '/metrics?format=text',
        '/metrics;x',
        '/%6detrics',
        '/METRICS',
        '/health/upstreams/',
        '//health/upstreams',
        '/health//upstreams',
        '/%68ealth/upstreams',
        // A service's own endpoints, through the routes the gateway forwards.
        '/auth/metrics',
        '/admin/../metrics',
        '/admin/%2e%2e/metrics',
        '/orders/..%2fmetrics',
        '/admin/dead-letters/../../metrics',
      ];
      const leaks: string[] = [];
      for (const path of spellings) {
        const answer = await attempt(`${deployment.baseUrl}${path}`, { headers: V0 });
        if (
          'failed' in answer ||
          answer.status < 400 ||
          /process_cpu|"upstreams"/.test(answer.text)
        )
          leaks.push(`${path}: ${'failed' in answer ? answer.failed : answer.status}`);
      }
      expect(leaks).toEqual([]);
      await expectPlatformServing(deployment);
    });

    if (TARGET === 'distributed') {
      it("serves each service's metrics on its own (internal) port only", async () => {
        for (const service of deployment.internal) {
          const response = await fetch(`${service.url}/metrics`);
          expect({ service: service.name, status: response.status }).toEqual({
            service: service.name,
            status: 200,
          });
          expect(await response.text()).toContain(`service="${service.name}"`);
        }
        await expectPlatformServing(deployment);
      });
    }
  });

  describe('row 9 (low): every error is problem+json; secrets never reach the log', () => {
    it.each([
      ['a content type nobody accepts', { 'content-type': 'text/xml' }, '<a/>', 415],
      ['malformed JSON', { 'content-type': 'application/json' }, '{bad', 400],
      ['an empty JSON body', { 'content-type': 'application/json' }, '', 400],
    ])('answers %s with problem+json', async (_case, headers, body, status) => {
      const response = await adminCall(deployment, '/admin/tenants', {
        method: 'POST',
        headers,
        body,
      });
      await expectProblem(response, status);
      await expectPlatformServing(deployment);
    });

    it.each([
      ['a content type nobody accepts', 'text/xml', '<a/>', [415]],
      ['malformed JSON', 'application/json', '{bad', [400]],
      ['an empty JSON body', 'application/json', '', [400]],
    ])(
      'answers %s with problem+json on every operation that takes a JSON body, on every port',
      async (_case, contentType, body, statuses) => {
        const failures: string[] = [];
        for (const surface of surfaces) {
          for (const { method, path, jsonBody } of surface.operations) {
            if (!jsonBody) continue;
            const answer = await attempt(`${surface.url}${pathWith(path, 'x')}`, {
              method,
              headers: { ...V0, authorization: `Bearer ${token}`, 'content-type': contentType },
              body,
            });
            const problem =
              !('failed' in answer) &&
              answer.type.startsWith('application/problem+json') &&
              !/\bat [\w.<>]+ \(|node_modules/.test(answer.text);
            // Partner events are raw bytes, checked against their signature first; the POS
            // callbacks judge a JSON body after the caller's permission. The configuration
            // group answers a wrong media type with 400 (ADR 0053).
            const expected = path.startsWith('/entities/')
              ? statuses.map((status) => (status === 415 ? 400 : status))
              : statuses;
            const acceptable =
              'failed' in answer
                ? false
                : expected.includes(answer.status) ||
                  (PARTNER_EVENTS.test(path) && answer.status === 401) ||
                  (JUDGED_AFTER_THE_ORDER.test(path) &&
                    answer.status === 403 &&
                    contentType === 'application/json');
            if (!problem || !acceptable) {
              failures.push(
                `${surface.name}: ${method} ${path}: ${'failed' in answer ? answer.failed : `${answer.status} ${answer.type}`}`,
              );
            }
          }
        }
        expect(failures).toEqual([]);
        await expectPlatformServing(deployment);
      },
    );

    it('answers an unknown route with 404 and a wrong method with 405 and Allow, both problem+json', async () => {
      await expectProblem(await fetch(`${deployment.baseUrl}/nowhere`, { headers: V0 }), 404);
      const wrongMethod = await adminCall(deployment, '/admin/tenants', { method: 'DELETE' });
      expect(wrongMethod.headers.get('allow')).toContain('GET');
      await expectProblem(wrongMethod, 405);
      const gatewayOwn = await fetch(`${deployment.baseUrl}/docs`, { method: 'POST' });
      expect(gatewayOwn.headers.get('allow')).toContain('GET');
      await expectProblem(gatewayOwn, 405);
      await expectPlatformServing(deployment);
    });

    it('answers every documented path asked with a method it lacks with 405 and Allow, on every port', async () => {
      const failures: string[] = [];
      for (const surface of surfaces) {
        await expectProblem(await fetch(`${surface.url}/nowhere`, { headers: V0 }), 404);
        const methodsByPath = new Map<string, string[]>();
        for (const { method, path } of surface.operations) {
          methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
        }
        for (const [path, methods] of methodsByPath) {
          const missing = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !methods.includes(m));
          if (!missing) continue;
          const answer = await fetch(`${surface.url}${pathWith(path, 'x')}`, {
            method: missing,
            headers: { ...V0, authorization: `Bearer ${token}` },
          });
          const allow = answer.headers.get('allow') ?? '';
          const text = await answer.text();
          if (
            answer.status !== 405 ||
            !methods.every((method) => allow.includes(method)) ||
            !answer.headers.get('content-type')?.startsWith('application/problem+json')
          ) {
            failures.push(
              `${surface.name}: ${missing} ${path}: ${answer.status} allow="${allow}" ${text.slice(0, 120)}`,
            );
          }
        }
      }
      expect(failures).toEqual([]);
      await expectPlatformServing(deployment);
    });

    it('points GET / to the API description', async () => {
      const response = await fetch(`${deployment.baseUrl}/`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ docs: '/docs' });
    });

    it('redacts secrets sent in a query string from the log of every process', async () => {
      const query = 'client_secret=TOPSECRET-q1&password=TOPSECRET-q2&token=TOPSECRET-q3';
      await (await adminCall(deployment, `/admin/tenants?${query}`)).arrayBuffer();
      for (const service of deployment.internal) {
        const response = await fetch(`${service.url}/admin/dead-letters?${query}`, {
          headers: { ...V0, authorization: `Bearer ${token}` },
        });
        await response.arrayBuffer();
      }
      for (const process of deployment.processes) {
        await waitFor(`${process.name} to log the request`, () =>
          process.output().includes('client_secret=[redacted]'),
        );
      }
      expect(deployment.output()).not.toContain('TOPSECRET');
      await expectPlatformServing(deployment);
    });
  });
});
