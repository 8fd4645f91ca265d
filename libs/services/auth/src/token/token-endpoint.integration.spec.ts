import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  startAuthTestService,
  TEST_ADMIN,
  type AuthTestService,
} from '../testing/auth-test-service';

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('token endpoint of the auth service', () => {
  let auth: AuthTestService;
  beforeAll(async () => {
    auth = await startAuthTestService('auth_token');
  });
  afterAll(() => auth?.close());

  const token = (tenant: string, body: string, headers: Record<string, string> = FORM) =>
    fetch(`${auth.url}/auth/${tenant}/connect/token`, { method: 'POST', headers, body });

  it('issues an RFC 9068 access token to the bootstrapped admin client', async () => {
    const response = await token(
      'platform',
      form({
        grant_type: 'client_credentials',
        client_id: TEST_ADMIN.clientId,
        client_secret: TEST_ADMIN.clientSecret,
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({ expires_in: 3600, token_type: 'Bearer', scope: 'platform:admin' });
    const accessToken = body.access_token as string;
    expect(decodeProtectedHeader(accessToken)).toMatchObject({
      alg: 'ES256',
      typ: 'at+jwt',
      kid: expect.any(String),
    });
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({
      iss: 'http://comanda.test/auth/platform',
      sub: TEST_ADMIN.clientId,
      client_id: TEST_ADMIN.clientId,
      aud: 'comanda-api',
      scope: 'platform:admin',
      tid: 'platform',
      env: 'test',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    expect(claims.jti).toEqual(expect.any(String));
  });

  it('accepts HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${TEST_ADMIN.clientId}:${TEST_ADMIN.clientSecret}`).toString(
      'base64',
    );
    const response = await token('platform', form({ grant_type: 'client_credentials' }), {
      ...FORM,
      authorization: `Basic ${basic}`,
    });
    expect(response.status).toBe(200);
  });

  it('challenges every 401 with WWW-Authenticate, also when the credentials came in the form (RFC 7235)', async () => {
    const failures: Array<Record<string, string>> = [
      // A wrong secret, an unknown client, no credentials at all: each in the form.
      { client_id: TEST_ADMIN.clientId, client_secret: 'wrong' },
      { client_id: 'nobody', client_secret: 'whatever' },
      {},
    ];
    for (const credentials of failures) {
      const response = await token(
        'platform',
        form({ grant_type: 'client_credentials', ...credentials }),
      );
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="comanda"');
      expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    }
  });
  it('answers the admin API with the token it issued (in-process keys)', async () => {
    const issued = (await (
      await token(
        'platform',
        form({
          grant_type: 'client_credentials',
          client_id: TEST_ADMIN.clientId,
          client_secret: TEST_ADMIN.clientSecret,
        }),
      )
    ).json()) as { access_token: string };
    const response = await fetch(`${auth.url}/admin/permissions`, {
      headers: { authorization: `Bearer ${issued.access_token}`, 'x-api-version': '0' },
    });
    expect(response.status).toBe(200);
    const permissions = (await response.json()) as Array<{ name: string; endpoints: string[] }>;
    expect(permissions.find((p) => p.name === 'configs:read')?.endpoints).toContain(
      'GET /entities/{entity}/configs',
    );
    expect(
      (await fetch(`${auth.url}/admin/permissions`, { headers: { 'x-api-version': '0' } })).status,
    ).toBe(401);
  });

  it('answers a client_id or secret carrying control characters with invalid_request, not 500', async () => {
    const response = await token(
      'platform',
      form({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', status: 400 });

    const basic = Buffer.from('admin:s\u0000').toString('base64');
    const viaBasic = await token('platform', form({ grant_type: 'client_credentials' }), {
      ...FORM,
      authorization: `Basic ${basic}`,
    });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="comanda"');
    expect(await viaBasic.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('keeps error_description to the characters RFC 6749 allows, whatever the request quoted', async () => {
    const admin = {
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.clientId,
      client_secret: TEST_ADMIN.clientSecret,
    };
    // RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E.
    const allowed = /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/;
    const bodies = [
      form({ ...admin, scope: 'café' }),
      form({ ...admin, scope: 'a"b\\c' }),
      form({ ...admin, scope: 'configs:read\u0000' }),
      form({ ...admin, scope: 'x'.repeat(3000) }),
      // A repeated parameter is named in the answer.
      `${form(admin)}&a%22b%5C%C3%A9=1&a%22b%5C%C3%A9=2`,
    ];
    const descriptions: string[] = [];
    for (const body of bodies) {
      const response = await token('platform', body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { error_description: string; detail: string };
      expect(answer.error_description).toMatch(allowed);
      expect(answer.error_description.length).toBeLessThanOrEqual(300);
      expect(answer.detail).toBe(answer.error_description);
      descriptions.push(answer.error_description);
    }
    expect(descriptions[0]).toBe('Not granted to this client: caf?.');
    expect(descriptions[1]).toBe('Not granted to this client: a?b?c.');
    expect(descriptions[3]).toMatch(/^Not granted to this client: x+\.\.\.$/);
    expect(descriptions[4]).toBe('The parameter a?b?? was sent more than once.');
  });

  it('answers a body that is not a form with invalid_request, whatever its media type', async () => {
    for (const [type, body] of [
      ['application/json', '{"grant_type":"client_credentials"}'],
      ['text/xml', '<grant_type>client_credentials</grant_type>'],
    ]) {
      const response = await token('platform', body, { 'content-type': type });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toMatchObject({
        error: 'invalid_request',
        error_description: expect.any(String),
        status: 400,
        code: 'oauth.invalid_request',
      });
    }
  });

  it('answers 404 for a tenant path that is no tenant id, on the token and key endpoints', async () => {
    const tokenResponse = await token(
      '%00',
      form({
        grant_type: 'client_credentials',
        client_id: TEST_ADMIN.clientId,
        client_secret: TEST_ADMIN.clientSecret,
      }),
    );
    expect(tokenResponse.status).toBe(404);
    expect(await tokenResponse.json()).toMatchObject({ code: 'auth.tenant_not_found' });
    for (const path of ['jwks.json', 'openid-configuration']) {
      const response = await fetch(`${auth.url}/auth/%00/.well-known/${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});
