import { randomBytes, createHash } from 'node:crypto';
import { connect } from 'node:net';
import { startService, type RunningService } from '@comanda/runtime';
import { gatewayService } from './gateway.service-definition';
import { UPSTREAM_RETRY_AFTER_SECONDS } from './gateway.errors';
import { chunkedBody, send } from './testing/raw-http';
import { startTestIssuer, type TestIssuer } from './testing/test-issuer';
import { startTestUpstream, unusedUrl, type TestUpstream } from './testing/test-upstream';

const V0 = { 'x-api-version': '0' };
const JSON_TYPE = { 'content-type': 'application/json' };

function fakeToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'at+jwt' })}.${part(claims)}.c2lnbmF0dXJl`;
}

/** Everything the server at `baseUrl` sends for `request`, until it closes the connection. */
function rawExchange(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

// Each upstream is reached over HTTP, or (as in standalone, ADR 0036) served in this process
// on the gateway's own request and response: every behaviour below must hold both ways.
describe.each([
  ['over HTTP', false],
  ['in process', true],
])('gateway in front of real upstreams, %s', (_mode, inProcess) => {
  let upstreams: Record<
    'auth' | 'config' | 'plugins' | 'orders' | 'payments' | 'notifications',
    TestUpstream
  >;
  let gateway: RunningService;

  beforeAll(async () => {
    upstreams = {
      auth: await startTestUpstream('auth', ['/auth/{tenant}/connect/token', '/admin/tenants'], {
        inProcess,
      }),
      config: await startTestUpstream('config-store', ['/entities/{entity}/configs'], {
        inProcess,
      }),
      plugins: await startTestUpstream('plugin-registry', ['/frontend/plugins'], { inProcess }),
      orders: await startTestUpstream('orders', ['/orders/{id}', '/stores/{id}'], { inProcess }),
      payments: await startTestUpstream('payments', ['/payments/merchants/{id}'], { inProcess }),
      notifications: await startTestUpstream(
        'notifications',
        ['/notifications/merchants/{id}/events'],
        { inProcess },
      ),
    };
    gateway = await startService(gatewayService, {
      port: 0,
      host: '127.0.0.1',
      env: gatewayEnv(),
    });
  });

  function gatewayEnv(): Record<string, string> {
    return {
      LOG_LEVEL: 'silent',
      AUTH_URL: upstreams.auth.url,
      CONFIG_STORE_URL: upstreams.config.url,
      PLUGIN_REGISTRY_URL: upstreams.plugins.url,
      ORDERS_URL: upstreams.orders.url,
      PAYMENTS_URL: upstreams.payments.url,
      NOTIFICATIONS_URL: upstreams.notifications.url,
      GATEWAY_BODY_LIMIT_BYTES: String(64 * 1024),
      GATEWAY_PLUGIN_CODE_LIMIT_BYTES: String(256 * 1024),
      GATEWAY_UPSTREAM_TIMEOUT_MS: '300',
      // The test upstreams answer fake tokens; the services behind a real gateway verify real ones.
      GATEWAY_VERIFY_TOKENS: 'false',
      GATEWAY_IN_PROCESS_UPSTREAMS: String(inProcess),
    };
  }

  afterAll(async () => {
    await gateway?.close();
    await Promise.all(Object.values(upstreams ?? {}).map((upstream) => upstream.close()));
  });

  describe('routing', () => {
    it.each([
      ['/auth/acme/.well-known/jwks.json', 'auth'],
      ['/admin/tenants', 'auth'],
      ['/connect/token', 'auth'],
      ['/.well-known/openid-configuration', 'auth'],
      ['/entities/menu/configs?take=2', 'config-store'],
      ['/frontend/plugins/configs', 'plugin-registry'],
      ['/stores/s1', 'orders'],
      ['/baskets/b1', 'orders'],
      ['/orders/o1', 'orders'],
      ['/payments/merchants/m1', 'payments'],
      ['/notifications/merchants/m1/events', 'notifications'],
    ])('forwards %s to %s with path and query unchanged', async (path, upstream) => {
      const response = await send(gateway.url, path, { headers: V0 });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ upstream, method: 'GET', url: path });
    });

    it('forwards a method Fastify does not route by default to the service that owns the path', async () => {
      for (const method of ['PROPFIND', 'SEARCH', 'PURGE', 'MKCOL']) {
        const response = await send(gateway.url, '/orders/o1', { method, headers: V0 });
        expect(response.status).toBe(200);
        expect(response.json()).toMatchObject({ upstream: 'orders', method, url: '/orders/o1' });
      }
    });

    it('answers 404 problem for a path no service owns, without forwarding', async () => {
      const response = await send(gateway.url, '/ordersx/1', { headers: V0 });
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 404, code: 'route.not_found' });
    });

    it('refuses dot segments that would reach another route upstream', async () => {
      for (const path of ['/entities/%2e%2e/admin/clients', '/entities/x/../../admin/clients']) {
        const response = await send(gateway.url, path, { headers: V0 });
        expect(response.status).toBe(400);
        expect(response.json()).toMatchObject({ code: 'request.invalid_path' });
      }
    });

    it('passes the upstream status, body and end-to-end headers through', async () => {
      const response = await send(gateway.url, '/orders/o1', {
        headers: { ...V0, 'x-test-status': '409' },
      });
      expect(response.status).toBe(409);
      expect(response.headers['x-upstream']).toBe('orders');
      expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(response.json()).toMatchObject({ upstream: 'orders' });
    });
  });

  describe('X-Api-Version', () => {
    it('answers 400 api_version.missing without the header', async () => {
      const before = upstreams.config.seen.length;
      const response = await send(gateway.url, '/entities/menu/configs');
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 400, code: 'api_version.missing' });
      expect(upstreams.config.seen.length).toBe(before);
    });

    it('answers 400 api_version.unsupported for version 1', async () => {
      const response = await send(gateway.url, '/orders/o1', { headers: { 'x-api-version': '1' } });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'api_version.unsupported' });
    });

    it.each([
      ['POST', '/auth/acme/connect/token', 'application/x-www-form-urlencoded'],
      ['POST', '/connect/token', 'application/x-www-form-urlencoded'],
      ['GET', '/auth/acme/.well-known/openid-configuration', undefined],
      ['GET', '/.well-known/jwks.json', undefined],
      ['POST', '/notifications/merchants/m1/events', 'application/json'],
    ])('lets %s %s through without it', async (method, path, contentType) => {
      const response = await send(gateway.url, path, {
        method,
        headers: contentType ? { 'content-type': contentType } : {},
        body: contentType ? 'grant_type=client_credentials' : undefined,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ url: path });
    });

    it('does not exempt other paths under /auth/{tenant} or /notifications', async () => {
      expect((await send(gateway.url, '/auth/acme/connect/token/x')).status).toBe(400);
      expect((await send(gateway.url, '/notifications/merchants/m1')).status).toBe(400);
    });
  });

  describe('Authorization scheme', () => {
    it('answers 401 auth.invalid_scheme with WWW-Authenticate for Basic on an API path', async () => {
      const response = await send(gateway.url, '/entities/menu/configs', {
        headers: { ...V0, authorization: `Basic ${Buffer.from('id:secret').toString('base64')}` },
      });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="comanda"');
      expect(response.json()).toMatchObject({ status: 401, code: 'auth.invalid_scheme' });
    });

    it('forwards partner events with whatever Authorization their client sends: their signature authenticates them', async () => {
      for (const authorization of [
        `Basic ${Buffer.from('partner:pw').toString('base64')}`,
        'Digest x',
      ]) {
        const response = await send(gateway.url, '/notifications/merchants/m1/events', {
          method: 'POST',
          headers: { ...JSON_TYPE, authorization },
          body: '{}',
        });
        expect(response.status).toBe(200);
        expect(response.json<{ headers: Record<string, string> }>().headers.authorization).toBe(
          authorization,
        );
      }
    });

    it('refuses an Authorization or Content-Type header sent twice, naming it, without forwarding', async () => {
      const forwardedBefore = upstreams.config.seen.length + upstreams.orders.seen.length;
      const twice = await send(gateway.url, '/entities/menu/configs', {
        // node:http sends each value of an array as a header line of its own.
        headers: { ...V0, authorization: ['Bearer a.b.c', 'Bearer d.e.f'] as unknown as string },
      });
      expect(twice.status).toBe(400);
      expect(twice.json()).toMatchObject({
        code: 'request.duplicate_header',
        detail: 'The authorization header must appear once.',
      });
      const types = await send(gateway.url, '/stores/s1', {
        method: 'PUT',
        headers: { ...V0, 'content-type': ['application/json', 'text/plain'] },
        body: '{}',
      });
      expect(types.status).toBe(400);
      expect(types.json()).toMatchObject({ code: 'request.duplicate_header' });
      expect(upstreams.config.seen.length + upstreams.orders.seen.length).toBe(forwardedBefore);
    });

    it('forwards Basic client authentication to the token endpoint', async () => {
      const authorization = `Basic ${Buffer.from('id:secret').toString('base64')}`;
      const response = await send(gateway.url, '/auth/acme/connect/token', {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(response.status).toBe(200);
      expect(response.json<{ headers: Record<string, string> }>().headers.authorization).toBe(
        authorization,
      );
    });

    it('forwards a Bearer token untouched for the service to verify', async () => {
      const response = await send(gateway.url, '/orders/o1', {
        headers: { ...V0, authorization: 'Bearer abc.def.ghi' },
      });
      expect(response.status).toBe(200);
      expect(response.json<{ headers: Record<string, string> }>().headers.authorization).toBe(
        'Bearer abc.def.ghi',
      );
    });
  });

  describe('Content-Type', () => {
    it('answers 415 for a JSON endpoint sent text/plain, 400 in the configuration group', async () => {
      const store = await send(gateway.url, '/stores/s1', {
        method: 'PUT',
        headers: { ...V0, 'content-type': 'text/plain' },
        body: '{}',
      });
      expect(store.status).toBe(415);
      expect(store.json()).toMatchObject({ status: 415, code: 'request.unsupported_media_type' });
      // The spec lists the configuration group's error statuses, 415 not among them.
      const config = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, 'content-type': 'text/plain' },
        body: '{}',
      });
      expect(config.status).toBe(400);
      expect(config.json()).toMatchObject({ status: 400, code: 'request.unsupported_media_type' });
    });

    it('answers 415 with Accept-Encoding for a body sent with a content coding, 400 in the configuration group, without forwarding', async () => {
      const forwardedBefore = upstreams.config.seen.length + upstreams.orders.seen.length;
      const store = await send(gateway.url, '/stores/s1', {
        method: 'PUT',
        headers: { ...V0, ...JSON_TYPE, 'content-encoding': 'gzip' },
        body: '{}',
      });
      expect(store.status).toBe(415);
      expect(store.headers['accept-encoding']).toBe('identity');
      expect(store.json()).toMatchObject({ status: 415, code: 'request.unsupported_media_type' });
      const config = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE, 'content-encoding': 'br' },
        body: '{}',
      });
      expect(config.status).toBe(400);
      expect(config.json()).toMatchObject({ status: 400, code: 'request.unsupported_media_type' });
      expect(upstreams.config.seen.length + upstreams.orders.seen.length).toBe(forwardedBefore);
      // `identity` is no coding: taken.
      const plain = await send(gateway.url, '/stores/s1', {
        method: 'PUT',
        headers: { ...V0, ...JSON_TYPE, 'content-encoding': 'identity' },
        body: '{}',
      });
      expect(plain.status).toBe(200);
    });

    it('answers a Content-Type header that is no media type as a problem, 400 in the configuration group', async () => {
      for (const contentType of ['foo', 'a b/c', '/']) {
        const store = await send(gateway.url, '/stores/s1', {
          method: 'PUT',
          headers: { ...V0, 'content-type': contentType },
          body: '{}',
        });
        expect(store.status).toBe(415);
        expect(store.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(store.json()).toMatchObject({
          status: 415,
          code: 'request.unsupported_media_type',
          requestId: expect.any(String),
        });
      }
      const config = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, 'content-type': 'foo' },
        body: '{}',
      });
      expect(config.status).toBe(400);
      expect(config.json()).toMatchObject({ status: 400, code: 'request.unsupported_media_type' });
    });

    it('accepts application/json with a charset parameter', async () => {
      const response = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, 'content-type': 'application/json; charset=utf-8' },
        body: '{"a":1}',
      });
      expect(response.status).toBe(200);
    });

    it('takes plugin code as text/plain and refuses it as JSON', async () => {
      const code = 'export const x = 1;';
      const accepted = await send(gateway.url, '/frontend/plugins?name=p&version=1.0.0', {
        method: 'POST',
        headers: { ...V0, 'content-type': 'text/plain' },
        body: code,
      });
      expect(accepted.status).toBe(200);
      expect(accepted.json()).toMatchObject({
        upstream: 'plugin-registry',
        bodyLength: code.length,
      });

      const refused = await send(gateway.url, '/frontend/plugins?name=p&version=1.0.0', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE },
        body: '{}',
      });
      expect(refused.status).toBe(415);
    });

    it('requires a form body at the token endpoint, refusing another as OAuth does (invalid_request)', async () => {
      const before = upstreams.auth.seen.length;
      for (const path of ['/auth/acme/connect/token', '/connect/token']) {
        const response = await send(gateway.url, path, {
          method: 'POST',
          headers: JSON_TYPE,
          body: '{"grant_type":"client_credentials"}',
        });
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringContaining('application/x-www-form-urlencoded'),
          status: 400,
          code: 'oauth.invalid_request',
        });
      }
      expect(upstreams.auth.seen.length).toBe(before);
    });

    it('answers two Authorization headers at the token endpoint as OAuth does (invalid_request)', async () => {
      const before = upstreams.auth.seen.length;
      const basic = `Basic ${Buffer.from('client:secret').toString('base64')}`;
      const response = await send(gateway.url, '/auth/acme/connect/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: [basic, basic] as unknown as string,
        },
        body: 'grant_type=client_credentials',
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        error: 'invalid_request',
        code: 'oauth.invalid_request',
      });
      expect(upstreams.auth.seen.length).toBe(before);
    });
  });

  describe('body size', () => {
    it('answers 413 up front when Content-Length exceeds the limit, without forwarding', async () => {
      const before = upstreams.config.seen.length;
      const response = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE },
        body: Buffer.alloc(64 * 1024 + 1, 0x20),
      });
      // 413 elsewhere; the configuration group answers its errors with the spec's statuses.
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: 'request.too_large' });
      expect(upstreams.config.seen.length).toBe(before);
      const store = await send(gateway.url, '/stores/s1', {
        method: 'PUT',
        headers: { ...V0, ...JSON_TYPE },
        body: Buffer.alloc(64 * 1024 + 1, 0x20),
      });
      expect(store.status).toBe(413);
    });

    it('answers 413 when a chunked body without Content-Length grows past the limit', async () => {
      const response = await send(gateway.url, '/entities/menu/configs', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE },
        body: chunkedBody(Buffer.alloc(200 * 1024, 0x20)),
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request.too_large' });
    });

    it('allows plugin code up to its own larger limit', async () => {
      const code = Buffer.alloc(200 * 1024, 0x61);
      const response = await send(gateway.url, '/frontend/plugins?name=p&version=2.0.0', {
        method: 'POST',
        headers: { ...V0, 'content-type': 'text/plain' },
        body: code,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ bodyLength: code.length });
    });
  });

  describe('streaming', () => {
    it('delivers a chunked body byte-identical to the upstream', async () => {
      const content = randomBytes(60 * 1024);
      const response = await send(gateway.url, '/orders/o1/anything', {
        method: 'PUT',
        headers: { ...V0, ...JSON_TYPE },
        body: chunkedBody(content),
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        bodyLength: content.length,
        bodySha256: sha256(content),
      });
    });

    it('delivers a body with Content-Length byte-identical and keeps the length', async () => {
      const content = randomBytes(10_000);
      const response = await send(gateway.url, '/notifications/merchants/m1/events', {
        method: 'POST',
        headers: JSON_TYPE,
        body: content,
      });
      const seen = response.json<{ bodySha256: string; headers: Record<string, string> }>();
      expect(seen.bodySha256).toBe(sha256(content));
      expect(seen.headers['content-length']).toBe('10000');
    });
  });

  describe('the way to the upstream', () => {
    it(
      inProcess
        ? 'hands a request with a known length to the upstream without a connection'
        : 'reaches the upstream over its own connections',
      async () => {
        const before = upstreams.orders.connections();
        const content = randomBytes(1000);
        const answers = await Promise.all([
          send(gateway.url, '/orders/o1', { headers: V0 }),
          send(gateway.url, '/orders/o1/items', {
            method: 'POST',
            headers: { ...V0, ...JSON_TYPE },
            body: content,
          }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
        expect(answers[1].json()).toMatchObject({ bodySha256: sha256(content) });
        // Over HTTP the pool may reuse connections opened earlier: some were opened at all.
        if (inProcess) expect(upstreams.orders.connections() - before).toBe(0);
        else expect(upstreams.orders.connections()).toBeGreaterThan(0);
      },
    );
  });

  describe('answers as the upstream gives them', () => {
    it('answers HEAD with the headers of GET and no body', async () => {
      const response = await send(gateway.url, '/orders/o1', { method: 'HEAD', headers: V0 });
      expect(response.status).toBe(200);
      expect(response.headers['x-upstream']).toBe('orders');
      expect(response.body.length).toBe(0);
    });

    it("passes an upstream's error status and body through, with the gateway's request id", async () => {
      const response = await send(gateway.url, '/stores/s1', {
        headers: { ...V0, 'x-test-status': '409', 'x-request-id': 'conflict-1' },
      });
      expect(response.status).toBe(409);
      expect(response.headers['x-request-id']).toBe('conflict-1');
      expect(response.json()).toMatchObject({ upstream: 'orders', url: '/stores/s1' });
    });

    it('keeps serving after a caller goes away before its answer', async () => {
      await expect(
        send(gateway.url, '/payments/merchants/m1/hang', { headers: V0, timeoutMs: 50 }),
      ).rejects.toThrow();
      expect((await send(gateway.url, '/payments/merchants/m1', { headers: V0 })).status).toBe(200);
    });
  });

  describe('headers', () => {
    it('does not forward hop-by-hop request headers, and drops hop-by-hop response headers', async () => {
      const response = await send(gateway.url, '/orders/o1', {
        headers: {
          ...V0,
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'secret',
          'keep-alive': 'timeout=5',
          'proxy-authorization': 'Basic eDp5',
          te: 'trailers',
          'x-end-to-end': 'kept',
        },
      });
      const seen = response.json<{ headers: Record<string, string> }>().headers;
      expect(seen['x-client-hop']).toBeUndefined();
      expect(seen['keep-alive']).toBeUndefined();
      expect(seen['proxy-authorization']).toBeUndefined();
      expect(seen['te']).toBeUndefined();
      expect(seen['x-end-to-end']).toBe('kept');
      expect(response.headers['x-upstream-hop']).toBeUndefined();
      // The gateway's own server may announce its keep-alive; the upstream's must not leak.
      expect(response.headers['keep-alive']).not.toBe('timeout=5');
    });

    it('generates a request id, returns it and forwards it with a trace context', async () => {
      const response = await send(gateway.url, '/orders/o1', { headers: V0 });
      const requestId = response.headers['x-request-id'];
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const seen = response.json<{ headers: Record<string, string> }>().headers;
      expect(seen['x-request-id']).toBe(requestId);
      expect(seen['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    });

    it('echoes a caller request id and continues the caller trace', async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const response = await send(gateway.url, '/orders/o1', {
        headers: {
          ...V0,
          'x-request-id': 'caller-42',
          traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        },
      });
      expect(response.headers['x-request-id']).toBe('caller-42');
      const seen = response.json<{ headers: Record<string, string> }>().headers;
      expect(seen['x-request-id']).toBe('caller-42');
      expect(seen['traceparent']).toContain(`00-${traceId}-`);
      expect(seen['traceparent']).not.toContain('00f067aa0ba902b7');
    });

    it('carries the request id in problems the gateway answers itself', async () => {
      const response = await send(gateway.url, '/orders/o1', {
        headers: { 'x-request-id': 'caller-43' },
      });
      expect(response.status).toBe(400);
      expect(response.headers['x-request-id']).toBe('caller-43');
      expect(response.json()).toMatchObject({ requestId: 'caller-43' });
    });

    it('sets X-Forwarded-For, -Proto and -Host for the upstream', async () => {
      const response = await send(gateway.url, '/.well-known/openid-configuration', {
        headers: { host: 'orders.acme.example', 'x-forwarded-for': '203.0.113.7' },
      });
      const seen = response.json<{ headers: Record<string, string> }>().headers;
      expect(seen['x-forwarded-host']).toBe('orders.acme.example');
      expect(seen['x-forwarded-proto']).toBe('http');
      expect(seen['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    });
  });

  describe('upstream failures', () => {
    it('answers 504 upstream.timeout when the upstream sends no answer in time, with a body too', async () => {
      const response = await send(gateway.url, '/payments/merchants/m1/hang', { headers: V0 });
      expect(response.status).toBe(504);
      expect(response.json()).toMatchObject({ status: 504, code: 'upstream.timeout' });
      const post = await send(gateway.url, '/payments/merchants/m1/hang', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE },
        body: '{"amount":1}',
      });
      expect(post.status).toBe(504);
      expect(post.json()).toMatchObject({ status: 504, code: 'upstream.timeout' });
    });

    it('answers the timeout 500 where the spec lists the statuses: the notification receiver and the configuration group (ADR 0054)', async () => {
      // The partner sends an event again only after a 500: a 504 may count as delivered.
      const event = await send(gateway.url, '/notifications/merchants/m1/events/hang', {
        method: 'POST',
        headers: { ...V0, ...JSON_TYPE },
        body: '{"eventId":"e-1"}',
      });
      expect(event.status).toBe(500);
      expect(event.json()).toMatchObject({ status: 500, code: 'upstream.timeout' });
      const config = await send(gateway.url, '/entities/a/configs/hang', { headers: V0 });
      expect(config.status).toBe(500);
      expect(config.json()).toMatchObject({ status: 500, code: 'upstream.timeout' });
    });

    it('answers a body that stops arriving with one 408 problem, not a 504 and then a 408', async () => {
      // Longer than the upstream timeout (300 ms): only the request timeout may answer.
      const slow = await startService(gatewayService, {
        port: 0,
        host: '127.0.0.1',
        env: { ...gatewayEnv(), HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '900' },
      });
      try {
        const raw = await rawExchange(
          slow.url,
          'PUT /entities/x/configs HTTP/1.1\r\nHost: x\r\nX-Api-Version: 0\r\n' +
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":',
        );
        expect(raw.split('HTTP/1.1 ')).toHaveLength(2);
        expect(raw).toMatch(/^HTTP\/1.1 408 /);
        expect(raw).toContain('"code":"request.timeout"');
      } finally {
        await slow.close();
      }
    });
  });

  describe('/docs', () => {
    it('serves the merged OpenAPI description of every service, without their internal paths', async () => {
      const response = await send(gateway.url, '/docs/openapi.json');
      expect(response.status).toBe(200);
      const document = response.json<{
        paths: Record<string, unknown>;
        components: { schemas: Record<string, unknown> };
      }>();
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining([
          '/auth/{tenant}/connect/token',
          '/admin/tenants',
          '/entities/{entity}/configs',
          '/frontend/plugins',
          '/orders/{id}',
          '/payments/merchants/{id}',
          '/notifications/merchants/{id}/events',
        ]),
      );
      expect(document.paths['/health/ready']).toBeUndefined();
      expect(Object.keys(document.components.schemas)).toEqual(
        expect.arrayContaining(['authThing', 'ordersThing']),
      );
    });

    it('serves a Swagger UI page and its assets', async () => {
      const page = await send(gateway.url, '/docs');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body.toString()).toContain('/docs/assets/swagger-ui-bundle.js');
      const bundle = await send(gateway.url, '/docs/assets/swagger-ui-bundle.js');
      expect(bundle.status).toBe(200);
      expect(bundle.body.length).toBeGreaterThan(100_000);
    });
  });

  describe('operational endpoints', () => {
    it.each([
      '/health/upstreams',
      '/metrics',
      // Spellings the router takes to the same handlers.
      '/%6detrics',
      '/%68ealth/upstreams',
      '/health/%75pstreams',
    ])('keeps %s private on the public port: 401 without a token', async (path) => {
      const response = await send(gateway.url, path);
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
    });

    it('keeps liveness and readiness open for load balancers', async () => {
      expect((await send(gateway.url, '/health/ready')).status).toBe(200);
    });

    it(
      inProcess
        ? 'is not ready while a service of its own process is not (standalone: the one public probe)'
        : 'stays ready while a service of another process is not (its own probe says so)',
      async () => {
        upstreams.orders.setReady(false);
        try {
          const response = await send(gateway.url, '/health/ready');
          if (inProcess) {
            expect(response.status).toBe(503);
            expect(response.json()).toMatchObject({
              status: 'error',
              error: { services: { status: 'down', orders: 'down', 'config-store': 'up' } },
            });
          } else {
            expect(response.status).toBe(200);
            // Nothing of another process is checked here, and the answer says so.
            expect(response.json()).toMatchObject({
              info: {
                services: { status: 'up', inThisProcess: expect.stringMatching(/^no service/) },
              },
            });
          }
        } finally {
          upstreams.orders.setReady(true);
        }
        expect((await send(gateway.url, '/health/ready')).status).toBe(200);
      },
    );
  });
});

describe('gateway with a tight rate limit and missing upstreams', () => {
  let config: TestUpstream;
  let issuer: TestIssuer;
  let gateway: RunningService;
  const bearer = async (tenant: string, client: string, scope?: string) => ({
    ...V0,
    authorization: `Bearer ${await issuer.token(tenant, client, scope)}`,
  });

  beforeAll(async () => {
    config = await startTestUpstream('config-store', []);
    issuer = await startTestIssuer();
    gateway = await startService(gatewayService, {
      port: 0,
      host: '127.0.0.1',
      env: {
        LOG_LEVEL: 'silent',
        AUTH_URL: issuer.url,
        CONFIG_STORE_URL: config.url,
        PAYMENTS_URL: await unusedUrl(),
        GATEWAY_RATE_LIMIT_MAX: '3',
        GATEWAY_RATE_LIMIT_WINDOW_MS: '60000',
      },
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await config?.close();
    await issuer?.close();
  });

  it('answers 429 with Retry-After once a verified client spent its budget, other clients unaffected', async () => {
    const alice = await bearer('acme', 'alice');
    const bob = await bearer('acme', 'bob');
    for (let i = 0; i < 3; i += 1) {
      const admitted = await send(gateway.url, '/entities/a/configs', { headers: alice });
      expect(admitted.status).toBe(200);
      // The budget left goes out with every answer.
      expect(admitted.headers['x-ratelimit-limit']).toBe('3');
      expect(admitted.headers['x-ratelimit-remaining']).toBe(String(2 - i));
      expect(Number(admitted.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }

    const limited = await send(gateway.url, '/entities/a/configs', { headers: alice });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, code: 'request.rate_limited' });

    expect((await send(gateway.url, '/entities/a/configs', { headers: bob })).status).toBe(200);
  });

  it('answers 404 route.not_found for a service that is not configured', async () => {
    const carol = await bearer('acme', 'carol');
    const response = await send(gateway.url, '/orders/o1', { headers: carol });
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ code: 'route.not_found' });
  });

  it('answers 502 upstream.unavailable when the upstream does not answer, with a body too', async () => {
    const dave = await bearer('acme', 'dave');
    const response = await send(gateway.url, '/payments/merchants/m1', { headers: dave });
    expect(response.status).toBe(502);
    expect(response.json()).toMatchObject({ status: 502, code: 'upstream.unavailable' });
    // A request whose body the gateway read before the upstream failed: never a 200.
    const put = await send(gateway.url, '/payments/merchants/m1', {
      method: 'PUT',
      headers: { ...dave, 'content-type': 'application/json' },
      body: '{"partnerUrl":"https://partner.example/payments"}',
    });
    expect(put.status).toBe(502);
    expect(put.json()).toMatchObject({ status: 502, code: 'upstream.unavailable' });
    expect(put.headers['retry-after']).toBe('5');
  });

  it('answers /health/upstreams only to platform:admin', async () => {
    const response = await send(gateway.url, '/health/upstreams', {
      headers: await bearer('acme', 'erin', 'configs:read'),
    });
    expect(response.status).toBe(403);
  });

  it('reports an upstream that is down', async () => {
    const response = await send(gateway.url, '/health/upstreams', {
      headers: await bearer('platform', 'ops', 'platform:admin'),
    });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe(String(UPSTREAM_RETRY_AFTER_SECONDS));
    expect(response.json()).toMatchObject({ code: 'upstream.not_ready' });
    // Which are down, and which answer: an operator sees the whole picture in one call.
    expect(response.json().detail).toMatch(
      /^Not ready: .*\bpayments\b.*\. Ready: .*\bconfig-store\b/,
    );
  });

  it('refuses a request without a token from its headers, before its body is read', async () => {
    const response = await send(gateway.url, '/entities/nobody/configs', {
      method: 'POST',
      headers: { ...V0, 'content-type': 'application/json', 'content-length': '1000000' },
      body: Buffer.from('{'),
    });
    expect(response.status).toBe(401);
    expect(config.seen.some((seen) => seen.url === '/entities/nobody/configs')).toBe(false);
  });

  it('counts a forged token against its address, never against the client it names', async () => {
    const forgedAsBob = {
      ...V0,
      authorization: `Bearer ${fakeToken({ client_id: 'bob', tid: 'acme' })}`,
    };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push(
        (await send(gateway.url, '/entities/a/configs', { headers: forgedAsBob })).status,
      );
    // The address's budget of 3 was partly spent by the request without a token above.
    expect(statuses.slice(-1)).toEqual([429]);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    // Bob's own budget is untouched by the forgeries (one of his three went above).
    expect(
      (await send(gateway.url, '/entities/a/configs', { headers: await bearer('acme', 'bob') }))
        .status,
    ).toBe(200);
  });
});

describe('gateway whose services are all away', () => {
  let gateway: RunningService;
  let issuer: TestIssuer;

  beforeAll(async () => {
    const away = await unusedUrl();
    // Only the signing keys answer (the issuer stands in for auth's JWKS; it has no dead
    // letters to list): the gateway can tell a real admin token from a forged one.
    issuer = await startTestIssuer();
    gateway = await startService(gatewayService, {
      port: 0,
      host: '127.0.0.1',
      env: {
        LOG_LEVEL: 'silent',
        AUTH_URL: issuer.url,
        CONFIG_STORE_URL: away,
        PLUGIN_REGISTRY_URL: away,
        ORDERS_URL: away,
        PAYMENTS_URL: away,
        NOTIFICATIONS_URL: away,
      },
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await issuer?.close();
  });

  it('answers the dead-letter list 503 to an admin when no service can list, never an empty 200', async () => {
    const admin = {
      ...V0,
      authorization: `Bearer ${await issuer.token('platform', 'ops', 'platform:admin')}`,
    };
    const response = await send(gateway.url, '/admin/dead-letters', { headers: admin });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toMatchObject({ status: 503, code: 'upstream.unavailable' });
  });

  it('refuses a forged token on the dead-letter routes itself, before asking any service', async () => {
    const forged = { ...V0, authorization: `Bearer ${fakeToken({ client_id: 'x', tid: 'acme' })}` };
    for (const [method, path] of [
      ['GET', '/admin/dead-letters'],
      ['POST', '/admin/dead-letters/nowhere.1/replay'],
      ['DELETE', '/admin/dead-letters/orders.1'],
    ] as const) {
      const response = await send(gateway.url, path, { method, headers: forged });
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
      expect(response.json()).toMatchObject({ code: 'auth.invalid_token' });
    }
  });
});

describe('gateway shutdown with a request still waiting for its upstream', () => {
  it('answers it 504 before its shutdown deadline, not a connection closed without an answer', async () => {
    const payments = await startTestUpstream('payments', ['/payments/merchants/{id}']);
    const gateway = await startService(gatewayService, {
      port: 0,
      host: '127.0.0.1',
      env: {
        LOG_LEVEL: 'silent',
        PAYMENTS_URL: payments.url,
        GATEWAY_VERIFY_TOKENS: 'false',
        // The upstream may take longer than the gateway may take to stop.
        GATEWAY_UPSTREAM_TIMEOUT_MS: '60000',
        SHUTDOWN_TIMEOUT_MS: '1500',
      },
    });
    try {
      const waiting = send(gateway.url, '/payments/merchants/m1/hang', { headers: V0 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      const closed = gateway.close();
      const response = await waiting;
      expect(response.status).toBe(504);
      expect(response.json()).toMatchObject({ status: 504, code: 'upstream.timeout' });
      // Before the deadline at which the process would exit (1 s before it, by design).
      expect(Date.now() - started).toBeLessThan(1500);
      await closed;
    } finally {
      await gateway.close();
      await payments.close();
    }
  });
});
