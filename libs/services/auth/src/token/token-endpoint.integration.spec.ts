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
});
