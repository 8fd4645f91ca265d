import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportSPKI, importJWK, SignJWT, type JWK } from 'jose';
import {
  adminCall,
  provisionClient,
  requestToken,
  type ProvisionedClient,
} from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { AUTH_KEYS_ENV, currentSigningKey, get, signToken } from './auth-test-kit';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('auth: tokens and their verification through the gateway', () => {
  let platform: TestPlatform;
  let reader: ProvisionedClient;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_auth_tokens', { env: AUTH_KEYS_ENV });
    reader = await provisionClient(platform, {
      tenantId: 'tokens-a',
      permissions: ['connections:read', 'connections:write', 'configs:read'],
    });
  }, 120_000);
  afterAll(() => platform?.close());

  const connections = '/entities/tokens-entity/connections';

  it('a client gets a token with the spec response and reads a protected endpoint with it', async () => {
    const response = await requestToken(platform.baseUrl, 'tokens-a', reader);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({
      expires_in: 3600,
      token_type: 'Bearer',
      scope: 'configs:read connections:read connections:write',
    });
    const token = body.access_token as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(decodeJwt(token)).toMatchObject({
      iss: `http://localhost:${platform.port}/auth/tokens-a`,
      sub: reader.clientId,
      client_id: reader.clientId,
      aud: 'comanda-api',
      tid: 'tokens-a',
      env: 'test',
    });
    const read = await get(platform, connections, token);
    expect(read.status).toBe(200);
  });

  it('answers the token endpoint with HTTP Basic, and refuses both methods at once', async () => {
    const basic = `Basic ${Buffer.from(`${reader.clientId}:${reader.clientSecret}`).toString('base64')}`;
    const url = `${platform.baseUrl}/auth/tokens-a/connect/token`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
    const viaBasic = await fetch(url, {
      method: 'POST',
      headers,
      body: 'grant_type=client_credentials',
    });
    expect(viaBasic.status).toBe(200);
    const both = await fetch(url, {
      method: 'POST',
      headers,
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_secret: reader.clientSecret,
      }).toString(),
    });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('answers RFC 6749 errors: wrong secret over Basic, unsupported grant, ungranted scope, JSON body', async () => {
    const url = `${platform.baseUrl}/auth/tokens-a/connect/token`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const wrong = await fetch(url, {
      method: 'POST',
      headers: {
        ...form,
        authorization: `Basic ${Buffer.from(`${reader.clientId}:nope`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="comanda"');
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });

    const password = await fetch(url, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: reader.clientId,
        client_secret: reader.clientSecret,
      }).toString(),
    });
    expect(password.status).toBe(400);
    expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });

    const scope = await requestToken(
      platform.baseUrl,
      'tokens-a',
      reader,
      'connections:read plugins:write',
    );
    expect(scope.status).toBe(400);
    expect(await scope.json()).toMatchObject({ error: 'invalid_scope' });

    const json = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: reader.clientId }),
    });
    // The gateway admits only form bodies on the token endpoint, and says so as OAuth does.
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('gives no token for a tenant the client is not granted (unauthorized_client)', async () => {
    await adminCall(platform, 'POST', '/admin/tenants', { id: 'tokens-b', name: 'B' });
    const response = await requestToken(platform.baseUrl, 'tokens-b', reader);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'unauthorized_client' });
  });

  it('with scope narrowed, only the endpoints of that scope open; others answer 403 insufficient_scope', async () => {
    const narrow = await reader.token('connections:read');
    expect((await get(platform, connections, narrow)).status).toBe(200);
    const write = await fetch(`${platform.baseUrl}${connections}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${narrow}`,
        'x-api-version': '0',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ id: 'c-1', entityType: 'Config' }),
    });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(await write.json()).toMatchObject({ status: 403, code: 'auth.insufficient_scope' });
  });

  it('a client without the permission of an endpoint gets 403', async () => {
    const plugins = await provisionClient(platform, {
      tenantId: 'tokens-a',
      permissions: ['plugins:read'],
    });
    const response = await get(platform, connections, await plugins.token());
    expect(response.status).toBe(403);
  });

  it('a tenant token cannot reach /admin/* (403), a token of tenant A does not read tenant B data (404)', async () => {
    expect((await get(platform, '/admin/tenants', await reader.token())).status).toBe(403);

    const entity = `/entities/isolation-${Date.now()}/configs`;
    const writer = await provisionClient(platform, {
      tenantId: 'tokens-a',
      permissions: ['configs:write', 'configs:read'],
    });
    const other = await provisionClient(platform, {
      tenantId: 'tokens-b',
      permissions: ['configs:write', 'configs:read'],
    });
    const created = await fetch(`${platform.baseUrl}${entity}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await writer.token()}`,
        'x-api-version': '0',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ id: 'secret-config', extensionReferences: [] }),
    });
    expect(created.status).toBe(200);
    expect((await get(platform, entity, await writer.token())).status).toBe(200);
    expect((await get(platform, entity, await other.token())).status).toBe(404);
  });

  it('the gateway refuses a missing or other X-Api-Version, a missing token and a Basic scheme', async () => {
    const token = await reader.token();
    const noVersion = await fetch(`${platform.baseUrl}${connections}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(noVersion.status).toBe(400);
    expect((await get(platform, connections, token, { 'x-api-version': '1' })).status).toBe(400);
    const noToken = await get(platform, connections);
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    const basic = await get(platform, connections, undefined, {
      authorization: 'Basic Zm9vOmJhcg==',
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('keeps the platform’s own host (COMANDA_PUBLIC_URL) from becoming a tenant’s issuer host', async () => {
    for (const [id, issuerHost] of [
      ['claims-platform', 'localhost'],
      ['claims-platform-2', 'LocalHost'],
    ]) {
      const refused = await adminCall<{ code: string }>(platform, 'POST', '/admin/tenants', {
        id,
        name: 'Not the platform',
        issuerHost,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('auth.issuer_host_taken');
    }
    const discovery = await fetch(`${platform.baseUrl}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(404);
  });

  it('serves discovery and the JWKS, also on a tenant issuer host (X-Forwarded-Host through the gateway)', async () => {
    const created = await adminCall(platform, 'POST', '/admin/tenants', {
      id: 'tokens-host',
      name: 'Own host',
      issuerHost: 'login.tokens-host.example',
    });
    expect(created.status).toBe(201);
    const discovery = await fetch(
      `${platform.baseUrl}/auth/tokens-a/.well-known/openid-configuration`,
    );
    expect(await discovery.json()).toMatchObject({
      issuer: `http://localhost:${platform.port}/auth/tokens-a`,
      token_endpoint: `http://localhost:${platform.port}/auth/tokens-a/connect/token`,
      grant_types_supported: ['client_credentials'],
    });
    const jwks = (await (
      await fetch(`${platform.baseUrl}/auth/tokens-a/.well-known/jwks.json`)
    ).json()) as { keys: JWK[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(2);
    expect(jwks.keys.every((key) => key.kid && key.alg === 'ES256' && !('d' in key))).toBe(true);

    const client = await provisionClient(platform, {
      tenantId: 'tokens-host',
      permissions: ['connections:read'],
    });
    const { request } = await import('undici');
    const onHost = await request(`${platform.baseUrl}/connect/token`, {
      method: 'POST',
      headers: {
        host: 'login.tokens-host.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }).toString(),
    });
    expect(onHost.statusCode).toBe(200);
    const token = ((await onHost.body.json()) as { access_token: string }).access_token;
    expect(decodeJwt(token)).toMatchObject({
      iss: `http://localhost:${platform.port}/auth/tokens-host`,
      tid: 'tokens-host',
    });
    expect((await get(platform, connections, token)).status).toBe(200);
  });

  describe('forged tokens are each answered 401 invalid_token', () => {
    async function expectInvalid(token: string) {
      const response = await get(platform, connections, token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await response.json()).toMatchObject({ status: 401, code: 'auth.invalid_token' });
    }

    it('a control token signed with the platform key is accepted', async () => {
      const key = await currentSigningKey(platform);
      expect(
        (await get(platform, connections, await signToken(platform, key, 'tokens-a'))).status,
      ).toBe(200);
    });

    it('alg: none', async () => {
      const key = await currentSigningKey(platform);
      const claims = decodeJwt(await signToken(platform, key, 'tokens-a'));
      await expectInvalid(`${b64({ alg: 'none', typ: 'at+jwt', kid: key.kid })}.${b64(claims)}.`);
    });

    it('HS256 signed with the public key', async () => {
      const key = await currentSigningKey(platform);
      const jwks = (await (
        await fetch(`${platform.baseUrl}/auth/tokens-a/.well-known/jwks.json`)
      ).json()) as { keys: JWK[] };
      const publicJwk = jwks.keys.find((candidate) => candidate.kid === key.kid) as JWK;
      const pem = await exportSPKI(
        (await importJWK(publicJwk, 'ES256', { extractable: true })) as Parameters<
          typeof exportSPKI
        >[0],
      );
      const claims = decodeJwt(await signToken(platform, key, 'tokens-a'));
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
        .sign(new TextEncoder().encode(pem));
      await expectInvalid(forged);
    });

    it('wrong typ', async () => {
      await expectInvalid(
        await signToken(platform, await currentSigningKey(platform), 'tokens-a', { typ: 'JWT' }),
      );
    });

    it("another tenant's issuer", async () => {
      const key = await currentSigningKey(platform);
      await expectInvalid(
        await signToken(platform, key, 'tokens-a', {
          claims: { iss: `http://localhost:${platform.port}/auth/tokens-b` },
        }),
      );
    });

    it('wrong audience', async () => {
      const key = await currentSigningKey(platform);
      await expectInvalid(
        await signToken(platform, key, 'tokens-a', { claims: { aud: 'another-api' } }),
      );
    });

    it('expired', async () => {
      const key = await currentSigningKey(platform);
      const past = Math.floor(Date.now() / 1000) - 120;
      await expectInvalid(
        await signToken(platform, key, 'tokens-a', {
          expiresAt: past,
          claims: { iat: past - 3600, nbf: past - 3600 },
        }),
      );
    });

    it('unknown kid', async () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await expectInvalid(
        await signToken(platform, { kid: 'unknown-kid', privateKey }, 'tokens-a'),
      );
    });

    it('tampered payload', async () => {
      const key = await currentSigningKey(platform);
      const [header, payload, signature] = (await signToken(platform, key, 'tokens-a')).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
        string,
        unknown
      >;
      await expectInvalid(
        `${header}.${b64({ ...claims, tid: 'tokens-b', scope: 'connections:write' })}.${signature}`,
      );
    });
  });
});
