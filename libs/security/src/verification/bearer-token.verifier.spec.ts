import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { securitySettingsFrom } from '../security-settings';
import { BearerTokenVerifier } from './bearer-token.verifier';
import { UnknownTenantError } from './issuer-keys';
import type { JwksSource } from './jwks-source';

const PUBLIC_URL = 'https://api.comanda.test';

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey: privateKey as CryptoKey, jwk };
}

type Key = Awaited<ReturnType<typeof signingKey>>;

function sign(key: Key, { kid = key.kid, tenant = 'tenant-a', expiresInSeconds = 3600 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: `${PUBLIC_URL}/auth/${tenant}`,
    sub: 'client-1',
    aud: 'comanda-api',
    client_id: 'client-1',
    scope: 'configs:read',
    tid: tenant,
    env: 'test',
    jti: `jti-${Math.random()}`,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSeconds)
    .sign(key.privateKey);
}

/** A key source the test controls: what it publishes, whether it fails, how often it is asked. */
class FakeSource implements JwksSource {
  published: JWK[] = [];
  failing = false;
  fetches = 0;
  async jwks(tenantId: string) {
    this.fetches++;
    if (tenantId.startsWith('unknown-')) throw new UnknownTenantError(tenantId);
    if (this.failing) throw new Error('issuer unreachable');
    return { keys: this.published };
  }
}

describe('BearerTokenVerifier', () => {
  let key: Key;
  let source: FakeSource;
  let time: number;
  let verifier: BearerTokenVerifier;
  const advance = (ms: number) => (time += ms);

  beforeAll(async () => {
    key = await signingKey('key-1');
  });

  beforeEach(() => {
    source = new FakeSource();
    source.published = [key.jwk];
    time = Date.now();
    // JWKS_REQUESTS_PER_MINUTE 10: one refetch per 6 s cool-down at most.
    const settings = securitySettingsFrom({
      COMANDA_PUBLIC_URL: PUBLIC_URL,
      JWKS_REQUESTS_PER_MINUTE: '10',
    });
    verifier = new BearerTokenVerifier(settings, () => source, { now: () => time });
  });

  it('verifies a token once and serves it from the cache until its exp', async () => {
    const token = await sign(key, { expiresInSeconds: 600 });
    const first = await verifier.verify(token);
    expect(first).toMatchObject({ clientId: 'client-1', tenantId: 'tenant-a' });
    // The issuer drops the key: a cached token keeps its meaning until it expires...
    source.published = [];
    advance(7_000);
    await verifier.verify(await sign(await signingKey('key-x'))).catch(() => undefined);
    expect(await verifier.verify(token)).toBe(first);
    // ...and is checked again once past its exp.
    advance(600_000);
    await expect(verifier.verify(token)).rejects.toMatchObject({ status: 401 });
  });

  it('never serves a token with an altered signature from the cache', async () => {
    const token = await sign(key);
    await verifier.verify(token);
    const tampered = `${token.slice(0, -4)}AAAA`;
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ status: 401 });
  });

  it('never serves a token that ends like a verified one but differs before', async () => {
    const token = await sign(key);
    await verifier.verify(token);
    // The same signature under another payload: the cache finds entries by a token's end.
    const [header, payload, signature] = token.split('.');
    const other = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object;
    const swapped = Buffer.from(JSON.stringify({ ...other, client_id: 'client-2' })).toString(
      'base64url',
    );
    const forged = `${header}.${swapped}.${signature}`;
    await expect(verifier.verify(forged)).rejects.toMatchObject({ status: 401 });
    expect(verifier.knownPrincipal({ headers: { authorization: `Bearer ${forged}` } })).toBe(
      undefined,
    );
    expect(await verifier.verify(token)).toMatchObject({ clientId: 'client-1' });
  });

  it('knows a verified token in any form of the header the pattern accepts', async () => {
    const token = await sign(key);
    const principal = await verifier.verify(token);
    const known = (authorization: string) =>
      verifier.knownPrincipal({ headers: { authorization } });
    expect(known(`Bearer ${token}`)).toBe(principal);
    expect(known(`bearer   ${token} `)).toBe(principal);
    // Not a bearer header, or the token with something around it: not known.
    expect(known(`Bearer ${token}x`)).toBe(undefined);
    expect(known(`Bearer x${token}`)).toBe(undefined);
    expect(known(`Basic ${token}`)).toBe(undefined);
    expect(known(token)).toBe(undefined);
  });

  it('fetches the key set once for many tokens of one issuer', async () => {
    for (let index = 0; index < 20; index++) await verifier.verify(await sign(key));
    expect(source.fetches).toBe(1);
  });

  it('refuses unknown kids from memory within the cool-down and remembers them after it', async () => {
    await verifier.verify(await sign(key));
    expect(source.fetches).toBe(1);
    const stranger = await signingKey('stranger');
    for (let index = 0; index < 100; index++) {
      await expect(
        verifier.verify(await sign(stranger, { kid: `random-${index}` })),
      ).rejects.toMatchObject({ status: 401, detail: expect.stringMatching(/kid/) });
    }
    expect(source.fetches).toBe(1);
    advance(6_000);
    const forged = await sign(stranger, { kid: 'random-after' });
    await expect(verifier.verify(forged)).rejects.toMatchObject({ status: 401 });
    expect(source.fetches).toBe(2);
    // The same unknown kid after another cool-down: refused from the negative cache.
    advance(6_000);
    await expect(verifier.verify(forged)).rejects.toMatchObject({ status: 401 });
    expect(source.fetches).toBe(2);
    expect(await verifier.verify(await sign(key))).toMatchObject({ clientId: 'client-1' });
  });

  it('keeps verifying known keys when a refetch fails, and answers 503 for unknown kids then', async () => {
    await verifier.verify(await sign(key));
    source.failing = true;
    advance(6_000);
    const rotated = await signingKey('key-2');
    await expect(verifier.verify(await sign(rotated))).rejects.toMatchObject({ status: 503 });
    await expect(verifier.verify(await sign(rotated))).rejects.toMatchObject({ status: 503 });
    expect(source.fetches).toBe(2);
    expect(await verifier.verify(await sign(key))).toMatchObject({ clientId: 'client-1' });
    // The issuer is back and publishes the new key: picked up after the cool-down.
    source.failing = false;
    source.published = [key.jwk, rotated.jwk];
    advance(6_000);
    expect(await verifier.verify(await sign(rotated))).toMatchObject({ clientId: 'client-1' });
    expect(source.fetches).toBe(3);
  });

  it('keeps the keys of a real tenant while forged tenant ids pass by the thousand', async () => {
    const real = await sign(key);
    await verifier.verify(real);
    for (let index = 0; index < 1100; index++) {
      await expect(
        verifier.verify(await sign(key, { tenant: `unknown-${index}` })),
      ).rejects.toMatchObject({ status: 401 });
    }
    const fetches = source.fetches;
    expect(await verifier.verify(await sign(key))).toMatchObject({ tenantId: 'tenant-a' });
    expect(source.fetches).toBe(fetches);
  }, 30_000);

  it('asks about an unknown tenant once per cool-down', async () => {
    for (let index = 0; index < 10; index++) {
      await expect(
        verifier.verify(await sign(key, { tenant: 'unknown-tenant' })),
      ).rejects.toMatchObject({ status: 401, detail: expect.stringMatching(/tenant/) });
    }
    expect(source.fetches).toBe(1);
  });
});
