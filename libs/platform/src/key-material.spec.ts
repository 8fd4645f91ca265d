import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withStandaloneKeyMaterial } from './key-material';

describe('standalone key material', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'comanda-keys-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes random keys on first start, kept with mode 0600 and reused after', async () => {
    const first = await withStandaloneKeyMaterial(dir, {});
    const file = join(dir, 'auth-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first['AUTH_KEY_ENCRYPTION_KEY']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first['AUTH_SECRET_PEPPER']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const second = await withStandaloneKeyMaterial(dir, {});
    expect(second['AUTH_KEY_ENCRYPTION_KEY']).toBe(first['AUTH_KEY_ENCRYPTION_KEY']);
    expect(readFileSync(file, 'utf8')).toContain(first['AUTH_SECRET_PEPPER']);
  });

  it('makes different keys in different data folders (nothing constant)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'comanda-keys-'));
    try {
      const a = await withStandaloneKeyMaterial(dir, {});
      const b = await withStandaloneKeyMaterial(other, {});
      expect(a['AUTH_KEY_ENCRYPTION_KEY']).not.toBe(b['AUTH_KEY_ENCRYPTION_KEY']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('agrees on one key file when two processes start at once', async () => {
    const [a, b] = await Promise.all([
      withStandaloneKeyMaterial(dir, {}),
      withStandaloneKeyMaterial(dir, {}),
    ]);
    expect(a['AUTH_KEY_ENCRYPTION_KEY']).toBe(b['AUTH_KEY_ENCRYPTION_KEY']);
    expect(a['COMANDA_SECRETS_KEY']).toBe(b['COMANDA_SECRETS_KEY']);
  });

  it('uses the keys of the environment when they are set, and makes no file then', async () => {
    const env = {
      AUTH_KEY_ENCRYPTION_KEY: 'k'.repeat(43),
      AUTH_SECRET_PEPPER: 'p'.repeat(32),
      COMANDA_SECRETS_KEY: 's'.repeat(43),
    };
    expect(await withStandaloneKeyMaterial(dir, env)).toBe(env);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('makes the key that seals merchant secrets, kept apart from auth keys and reused', async () => {
    const first = await withStandaloneKeyMaterial(dir, {});
    const file = join(dir, 'secrets-key.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first['COMANDA_SECRETS_KEY']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first['COMANDA_SECRETS_KEY']).not.toBe(first['AUTH_KEY_ENCRYPTION_KEY']);
    const second = await withStandaloneKeyMaterial(dir, {});
    expect(second['COMANDA_SECRETS_KEY']).toBe(first['COMANDA_SECRETS_KEY']);
    // With auth's keys set and the data folder made by an earlier version, it is still made.
    const onlyAuth = {
      AUTH_KEY_ENCRYPTION_KEY: 'k'.repeat(43),
      AUTH_SECRET_PEPPER: 'p'.repeat(32),
    };
    expect((await withStandaloneKeyMaterial(dir, onlyAuth))['COMANDA_SECRETS_KEY']).toBe(
      first['COMANDA_SECRETS_KEY'],
    );
  });
});
