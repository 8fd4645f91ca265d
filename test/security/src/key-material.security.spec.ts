import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { expectPlatformServing } from './support/clients';
import { startDeployment, TARGET, type Deployment } from './support/deployment';
import { runBuiltService } from './support/distributed-deployment';
import { delay } from './support/processes';

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

const LEGACY_ENV = {
  AUTH_KEY_ENCRYPTION_KEY: legacyKey('key-encryption').toString('base64url'),
  AUTH_SECRET_PEPPER: `base64:${legacyKey('secret-pepper').toString('base64url')}`,
};

describe('row 4 (high): no constant key, standalone or not', () => {
  let legacy: Deployment | undefined;
  let upgraded: Deployment | undefined;

  afterAll(async () => {
    await upgraded?.close();
    await legacy?.close();
  });

  it('re-seals data sealed under the former constant key with keys of its own, and keeps serving it', async () => {
    // An earlier version: signing keys sealed under the constant development key.
    legacy = await startDeployment('keys', { env: LEGACY_ENV });
    await expectPlatformServing(legacy);
    const before = await sealedKeys(legacy.databaseUrl);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((row) => opensWith(legacyKey('key-encryption'), row.sealed, row.kid))).toBe(
      true,
    );
    await legacy.stop();

    if (TARGET === 'standalone') {
      // This version, nothing set: random keys made once, the old data re-sealed with them.
      upgraded = await startDeployment('keys', { reuse: legacy });
      const file = join(upgraded.dataDir, 'auth-keys.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } else {
      // Distributed, the operator sets keys of their own and names the former ones.
      upgraded = await startDeployment('keys', {
        reuse: legacy,
        env: {
          AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
          AUTH_SECRET_PEPPER: randomBytes(32).toString('base64url'),
          AUTH_PREVIOUS_KEY_ENCRYPTION_KEY: LEGACY_ENV.AUTH_KEY_ENCRYPTION_KEY,
          AUTH_PREVIOUS_SECRET_PEPPER: LEGACY_ENV.AUTH_SECRET_PEPPER,
        },
      });
    }
    const after = await sealedKeys(upgraded.databaseUrl);
    expect(after.map((row) => row.kid).sort()).toEqual(before.map((row) => row.kid).sort());
    expect(after.some((row) => opensWith(legacyKey('key-encryption'), row.sealed, row.kid))).toBe(
      false,
    );
    // The admin client made under the old pepper still authenticates; tokens still verify.
    await expectPlatformServing(upgraded);
  });

  if (TARGET === 'distributed') {
    it.each(['test', 'production'])(
      'refuses to start the auth service with COMANDA_ENVIRONMENT=%s and no key material',
      async (environment) => {
        const deployment = upgraded as Deployment;
        const auth = runBuiltService(deployment, 'auth', {
          env: {
            COMANDA_ENVIRONMENT: environment,
            COMANDA_PUBLIC_URL: 'https://api.example.com',
            LOG_LEVEL: 'info',
          },
          without: [
            'AUTH_KEY_ENCRYPTION_KEY',
            'AUTH_SECRET_PEPPER',
            'AUTH_PREVIOUS_KEY_ENCRYPTION_KEY',
            'AUTH_PREVIOUS_SECRET_PEPPER',
          ],
        });
        try {
          const exit = await Promise.race([auth.exited, delay(60_000).then(() => 'still running')]);
          expect(exit).not.toBe(0);
          expect(exit).not.toBe('still running');
          expect(auth.output()).toContain('AUTH_KEY_ENCRYPTION_KEY and AUTH_SECRET_PEPPER');
        } finally {
          auth.kill('SIGKILL');
          await auth.exited;
        }
        await expectPlatformServing(deployment);
      },
    );
  }
});
