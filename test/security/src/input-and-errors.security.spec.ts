import { readFileSync } from 'node:fs';
import { waitFor } from '@comanda/testing';
import { adminCall, expectPlatformServing, expectProblem, tenantId, V0 } from './support/clients';
import { startPlatformProcess, type PlatformProcess } from './support/platform-process';
import { tenantClientToken } from './support/tenant-client';

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

describe('rows 6-9 and the low rows: bodies, input, operational endpoints and errors', () => {
  let platform: PlatformProcess;

  beforeAll(async () => {
    platform = await startPlatformProcess('input', { env: { LOG_LEVEL: 'info' } });
  });
  afterAll(() => platform?.close());

  describe('row 6 (medium): authentication before the body, one body limit along the path', () => {
    it('refuses 300 unauthenticated 1.95 MB uploads from their headers without holding their bodies', async () => {
      const before = rssKiB(platform.pid);
      const body = 'x'.repeat(1_950_000);
      for (let batch = 0; batch < 10; batch++) {
        const statuses = await Promise.all(
          Array.from({ length: 30 }, async () => {
            const response = await fetch(`${platform.baseUrl}/frontend/plugins`, {
              method: 'POST',
              headers: { ...V0, 'content-type': 'text/plain' },
              body,
            }).catch(() => undefined);
            await response?.arrayBuffer();
            // The gateway may close the socket before the whole body went: also a refusal.
            return response?.status ?? 401;
          }),
        );
        expect(statuses.every((status) => status === 401)).toBe(true);
      }
      expect(rssKiB(platform.pid) - before).toBeLessThan(200 * 1024);
      await expectPlatformServing(platform);
    });

    it('answers a 500 KB admin body with 413 problem+json, never 502', async () => {
      const response = await adminCall(platform, '/admin/tenants', {
        method: 'POST',
        body: { id: tenantId(), name: 'x'.repeat(500_000) },
      });
      const problem = await expectProblem(response, 413);
      expect(problem.code).toBe('request.too_large');
      await expectPlatformServing(platform);
    });
  });

  describe('row 7 (medium): one input guard, identifier lengths, 409 on unique violations', () => {
    it('answers JSON nested 10,000 deep with 400, not a stack overflow', async () => {
      const deep = '{"id":"deep","name":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
      const problem = await expectProblem(
        await adminCall(platform, '/admin/tenants', { method: 'POST', body: deep }),
        400,
      );
      expect(problem).toMatchObject({
        code: 'request.invalid',
        errors: [expect.objectContaining({ path: expect.stringContaining('name') })],
      });
      await expectPlatformServing(platform);
    });

    it('answers two concurrent creates of one tenant id with one 201 and one 409', async () => {
      const id = tenantId('race');
      const responses = await Promise.all(
        [1, 2].map(() =>
          adminCall(platform, '/admin/tenants', { method: 'POST', body: { id, name: 'Race' } }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([201, 409]);
      const conflict = responses.find((response) => response.status === 409) as Response;
      await expectProblem(conflict, 409);
      await expectPlatformServing(platform);
    });

    it('answers a 3,000-character client_id with 400, on the token endpoint and the admin API', async () => {
      const long = 'c'.repeat(3000);
      const token = await fetch(`${platform.baseUrl}/auth/platform/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${long}&client_secret=whatever`,
      });
      expect(token.status).toBe(400);
      const admin = await adminCall(platform, `/admin/clients/${long}`);
      // Past any identifier's length a path names nothing: 404, or 414 when the URL is too long.
      expect([400, 404, 414]).toContain(admin.status);
      expect(admin.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      await expectPlatformServing(platform);
    });

    it('reads back an extension whose id has the longest allowed length, and refuses a longer one', async () => {
      const { token } = await tenantClientToken(platform, ['extensions:read', 'extensions:write']);
      const headers = {
        ...V0,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      };
      for (const length of [150, 200]) {
        const id = 'e'.repeat(length);
        const created = await fetch(`${platform.baseUrl}/entities/shop/extensions`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ id, version: '1', availability: 'Private' }),
        });
        if (created.ok) {
          const read = await fetch(
            `${platform.baseUrl}/entities/shop/extensions/${id}?include_private=true`,
            { headers },
          );
          expect(read.status).toBe(200);
        } else {
          expect(created.status).toBe(400);
        }
      }
      const tooLong = await fetch(`${platform.baseUrl}/entities/shop/extensions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ id: 'e'.repeat(201), version: '1', availability: 'Private' }),
      });
      expect(tooLong.status).toBe(400);
      await expectPlatformServing(platform);
    });
  });

  describe('row 8 (medium): operational endpoints are private on the public port', () => {
    it.each(['/metrics', '/health/upstreams'])(
      'answers %s with 401 without a token, and to platform:admin',
      async (path) => {
        await expectProblem(await fetch(`${platform.baseUrl}${path}`), 401);
        expect((await adminCall(platform, path)).status).toBe(200);
        await expectPlatformServing(platform);
      },
    );
  });

  describe('row 9 (low): every error is problem+json; secrets never reach the log', () => {
    it.each([
      ['a content type nobody accepts', { 'content-type': 'text/xml' }, '<a/>', 415],
      ['malformed JSON', { 'content-type': 'application/json' }, '{bad', 400],
      ['an empty JSON body', { 'content-type': 'application/json' }, '', 400],
    ])('answers %s with problem+json', async (_case, headers, body, status) => {
      const response = await adminCall(platform, '/admin/tenants', {
        method: 'POST',
        headers,
        body,
      });
      await expectProblem(response, status);
      await expectPlatformServing(platform);
    });

    it('answers an unknown route with 404 and a wrong method with 405 and Allow, both problem+json', async () => {
      await expectProblem(await fetch(`${platform.baseUrl}/nowhere`, { headers: V0 }), 404);
      const wrongMethod = await adminCall(platform, '/admin/tenants', { method: 'DELETE' });
      expect(wrongMethod.headers.get('allow')).toContain('GET');
      await expectProblem(wrongMethod, 405);
      const gatewayOwn = await fetch(`${platform.baseUrl}/docs`, { method: 'POST' });
      expect(gatewayOwn.headers.get('allow')).toContain('GET');
      await expectProblem(gatewayOwn, 405);
      await expectPlatformServing(platform);
    });

    it('points GET / to the API description', async () => {
      const response = await fetch(`${platform.baseUrl}/`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ docs: '/docs' });
    });

    it('redacts secrets sent in a query string from the log', async () => {
      const response = await adminCall(
        platform,
        '/admin/tenants?client_secret=TOPSECRET-q1&password=TOPSECRET-q2&token=TOPSECRET-q3',
      );
      await response.arrayBuffer();
      await waitFor('the request to be logged', () =>
        platform.output().includes('client_secret=[redacted]'),
      );
      expect(platform.output()).not.toContain('TOPSECRET');
      await expectPlatformServing(platform);
    });
  });
});
