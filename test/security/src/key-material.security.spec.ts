import { createDecipheriv, createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { expectPlatformServing } from './support/clients';
import { startPlatformProcess, type PlatformProcess } from './support/platform-process';

/** The constant earlier versions derived their keys from: what an attacker would try. */
function legacyKey(purpose: string): Buffer {
  return createHash('sha256').update(`comanda development key: ${purpose}`).digest();
}

function opensWith(key: Buffer, sealed: string, kid: string): boolean {
  const [, iv, tag, ciphertext] = sealed.split('.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    decipher.update(Buffer.from(ciphertext, 'base64url'));
    decipher.final();
    return true;
  } catch {
    return false;
  }
}

async function sealedKeys(databaseUrl: string): Promise<Array<{ kid: string; sealed: string }>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ kid: string; sealed: string }>(
      'SELECT kid, private_key_sealed AS sealed FROM auth.signing_keys',
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('row 4 (high): no constant key in standalone mode', () => {
  let legacy: PlatformProcess | undefined;
  let upgraded: PlatformProcess | undefined;

  afterAll(async () => {
    await upgraded?.close();
    await legacy?.close();
  });

  it('re-seals data of an earlier version with random keys kept 0600 in the data folder, and keeps serving it', async () => {
    // An earlier version: signing keys sealed under the constant development key.
    legacy = await startPlatformProcess('keys', {
      env: {
        AUTH_KEY_ENCRYPTION_KEY: legacyKey('key-encryption').toString('base64url'),
        AUTH_SECRET_PEPPER: `base64:${legacyKey('secret-pepper').toString('base64url')}`,
      },
    });
    await expectPlatformServing(legacy);
    const before = await sealedKeys(legacy.databaseUrl);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((row) => opensWith(legacyKey('key-encryption'), row.sealed, row.kid))).toBe(
      true,
    );
    await legacy.stop();

    // This version, nothing set: random keys made once, the old data re-sealed with them.
    upgraded = await startPlatformProcess('keys', { reuse: legacy });
    const file = join(upgraded.dataDir, 'auth-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = await sealedKeys(upgraded.databaseUrl);
    expect(after.map((row) => row.kid).sort()).toEqual(before.map((row) => row.kid).sort());
    expect(after.some((row) => opensWith(legacyKey('key-encryption'), row.sealed, row.kid))).toBe(
      false,
    );
    // The admin client made under the old pepper still authenticates; tokens still verify.
    await expectPlatformServing(upgraded);
  });
});
