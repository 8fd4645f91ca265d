import { adminToken, requestToken } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** The gateway as an integrator meets it: the real platform, the real auth service, real HTTP. */
describe('gateway: the public port of the platform', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_gateway');
  }, 120_000);
  afterAll(() => platform?.close());

  const get = (path: string, headers: Record<string, string>) =>
    fetch(`${platform.baseUrl}${path}`, { headers });

  it('issues a token at the tenant token endpoint without X-Api-Version, which then reads a protected endpoint', async () => {
    const tokenResponse = await requestToken(
      platform.baseUrl,
      'platform',
      platform.admin,
      'platform:admin',
    );
    expect(tokenResponse.status).toBe(200);
    expect(tokenResponse.headers.get('cache-control')).toContain('no-store');
    const token = (await tokenResponse.json()) as { access_token: string; token_type: string };
    expect(token.token_type).toBe('Bearer');

    const tenants = await get('/admin/tenants', {
      authorization: `Bearer ${token.access_token}`,
      'x-api-version': '0',
    });
    expect(tenants.status).toBe(200);
    expect(tenants.headers.get('x-request-id')).toBeTruthy();
  });

  it('serves every service’s metrics at the public /metrics for platform:admin, each family once', async () => {
    const response = await get('/metrics', {
      authorization: `Bearer ${await adminToken(platform)}`,
      'x-api-version': '0',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    for (const service of ['orders', 'payments', 'notifications', 'config-store', 'auth']) {
      expect(text).toContain(`comanda_outbox_pending_events{service="${service}"}`);
    }
    expect(text).toMatch(/^comanda_bus_connected\{service="orders"\} 1$/m);
    // The process's own metrics once: every service of it would repeat them.
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="gateway"\} /m);
    expect(text).not.toContain('process_cpu_user_seconds_total{service="orders"}');
    const types = text.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    expect(
      types.filter((line) => line.startsWith('# TYPE comanda_outbox_pending_events ')),
    ).toHaveLength(1);
  });

  it('answers 400 problem without X-Api-Version, before the service sees the request', async () => {
    const response = await get('/admin/tenants', {
      authorization: `Bearer ${await adminToken(platform)}`,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 400, code: 'api_version.missing' });
  });

  it('answers 400 problem for X-Api-Version: 1', async () => {
    const response = await get('/admin/tenants', {
      authorization: `Bearer ${await adminToken(platform)}`,
      'x-api-version': '1',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'api_version.unsupported' });
  });

  it('answers 405 with the path’s methods for a method no route has, WebDAV’s and the like included', async () => {
    const headers = { authorization: `Bearer ${await adminToken(platform)}`, 'x-api-version': '0' };
    for (const method of ['PROPFIND', 'SEARCH', 'PURGE', 'PATCH']) {
      const response = await fetch(`${platform.baseUrl}/admin/tenants`, { method, headers });
      const body = (await response.json()) as { code: string };
      expect({ method, status: response.status, code: body.code }).toEqual({
        method,
        status: 405,
        code: 'request.method_not_allowed',
      });
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    }
    // With a body of a type no route of the path takes: still 405, decided before the body.
    for (const [method, path, allow] of [
      ['PROPFIND', '/admin/tenants', 'GET, HEAD, POST'],
      ['SEARCH', '/entities/x/configs', 'GET, HEAD, POST, PUT, DELETE'],
    ]) {
      const response = await fetch(`${platform.baseUrl}${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/xml' },
        body: '<propfind/>',
      });
      expect({ method, status: response.status }).toEqual({ method, status: 405 });
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('answers 401 with WWW-Authenticate Bearer and no error code without a token (from the service)', async () => {
    const response = await get('/admin/tenants', { 'x-api-version': '0' });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer realm=/);
    expect(challenge).not.toContain('error=');
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 401 auth.invalid_scheme for the Basic scheme on an API path', async () => {
    const basic = Buffer.from(`${platform.admin.clientId}:${platform.admin.clientSecret}`).toString(
      'base64',
    );
    const response = await get('/admin/tenants', {
      authorization: `Basic ${basic}`,
      'x-api-version': '0',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="comanda"');
    expect(await response.json()).toMatchObject({ status: 401, code: 'auth.invalid_scheme' });
  });

  it('accepts Basic client authentication at the token endpoint', async () => {
    const basic = Buffer.from(
      `${encodeURIComponent(platform.admin.clientId)}:${encodeURIComponent(platform.admin.clientSecret)}`,
    ).toString('base64');
    const response = await fetch(`${platform.baseUrl}/auth/platform/connect/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=platform%3Aadmin',
    });
    expect(response.status).toBe(200);
  });

  it('serves the OpenID discovery document without X-Api-Version', async () => {
    const response = await get('/auth/platform/.well-known/openid-configuration', {});
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      token_endpoint: expect.stringContaining('/auth/platform/connect/token'),
    });
  });

  it('lists the auth paths in the merged OpenAPI description at /docs', async () => {
    const page = await get('/docs', {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');

    const response = await get('/docs/openapi.json', {});
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/auth/{tenantId}/connect/token',
        '/admin/tenants',
        '/admin/clients',
        '/admin/clients/{clientId}/secret',
        '/entities/{entity}/configs',
        '/frontend/plugins',
      ]),
    );
    expect(paths.some((path) => path.startsWith('/health'))).toBe(false);
  });

  it('declares every path parameter, and the query parameters the spec names, in /docs', async () => {
    interface Operation {
      parameters?: Array<{ in: string; name: string; required?: boolean }>;
    }
    const document = (await (await get('/docs/openapi.json', {})).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const undeclared: string[] = [];
    const query = (path: string, method: string) =>
      (document.paths[path]?.[method]?.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => `${parameter.name}${parameter.required ? '!' : ''}`);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (typeof operation !== 'object' || !('responses' in operation)) continue;
        for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
          const declared = (operation.parameters ?? []).some(
            (parameter) => parameter.in === 'path' && parameter.name === name,
          );
          if (!declared) undeclared.push(`${method} ${path} {${name}}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
    expect(query('/entities/{entity}/configs/versions', 'get')).toEqual(
      expect.arrayContaining(['take', 'include_deleted', 'include_datatypes']),
    );
    expect(query('/entities/{entity}/connections', 'get')).toEqual(
      expect.arrayContaining(['entity_id', 'entity_type', 'created_at_offset', 'limit']),
    );
    expect(query('/entities/{entity}/extensions', 'get')).toEqual(
      expect.arrayContaining([
        'include_deleted',
        'include_private',
        'created_at_offset',
        'complete',
        'limit',
      ]),
    );
    expect(query('/frontend/plugins', 'post')).toEqual(['name!', 'version!']);
  });
});
