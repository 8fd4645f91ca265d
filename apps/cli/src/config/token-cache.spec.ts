import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultProfile, EXPIRY_MARGIN_MS, TokenCache, type CachedToken } from './token-cache';

describe('token cache', () => {
  let directory: string;
  beforeEach(() => {
    directory = join(mkdtempSync(join(tmpdir(), 'comanda-cache-')), 'nested');
  });
  afterEach(() => rmSync(join(directory, '..'), { recursive: true, force: true }));

  const token = (expiresAt: number): CachedToken => ({
    url: 'http://localhost:3000',
    tenant: 'acme',
    clientId: 'c1',
    scope: 'configs:read',
    accessToken: 'token',
    expiresAt,
  });

  it('writes tokens.json readable by its owner only, in a directory it creates', async () => {
    const cache = new TokenCache(directory);
    await cache.write(token(Date.now() + 3_600_000));
    expect(statSync(cache.path).mode & 0o777).toBe(0o600);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
  });

  it('tightens the mode of a token file that already existed with a looser one', async () => {
    const cache = new TokenCache(directory);
    await cache.write(token(1));
    writeFileSync(cache.path, '{}', { mode: 0o644 });
    await cache.write(token(Date.now() + 3_600_000));
    expect(statSync(cache.path).mode & 0o777).toBe(0o600);
  });

  it('offers the token until a minute before it expires, then no more', async () => {
    const cache = new TokenCache(directory);
    const now = 1_000_000_000_000;
    await cache.write(token(now + EXPIRY_MARGIN_MS + 1));
    expect(await cache.usable(now)).toMatchObject({ accessToken: 'token' });
    expect(await cache.usable(now + 1)).toBeUndefined();
  });

  it('keeps a token of one minute usable for its first 54 seconds', async () => {
    const cache = new TokenCache(directory);
    const now = 1_000_000_000_000;
    await cache.write({ ...token(now + 60_000), obtainedAt: now });
    expect(await cache.usable(now + 53_999)).toMatchObject({ accessToken: 'token' });
    expect(await cache.usable(now + 54_001)).toBeUndefined();
  });

  it('has nothing when no login happened yet', async () => {
    expect(await new TokenCache(directory).usable()).toBeUndefined();
  });

  it('keeps one token per identity: logging in as another client never replaces the first', async () => {
    const cache = new TokenCache(directory);
    const admin = {
      ...token(Date.now() + 3_600_000),
      clientId: 'platform-admin',
      tenant: 'platform',
    };
    const integrator = { ...token(Date.now() + 3_600_000), accessToken: 'integrator' };
    await cache.write(admin);
    await cache.write(integrator, 'pos');
    expect(await cache.read()).toEqual(integrator);
    expect(await cache.read(defaultProfile(admin))).toEqual(admin);
    expect(await cache.profiles()).toEqual({
      current: 'pos',
      names: ['platform-admin@platform@http://localhost:3000', 'pos'],
    });
  });
});
