import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

interface StoredKeys {
  keyEncryptionKey: string;
  secretPepper: string;
}

/**
 * What earlier versions of standalone mode used when nothing was set: keys derived from a
 * constant. Only ever passed as the *previous* keys, so data they sealed is re-sealed with
 * the random keys on the first start of this version and then no longer depends on them.
 */
function legacyDevelopmentKey(purpose: string): string {
  return createHash('sha256').update(`comanda development key: ${purpose}`).digest('base64url');
}

/**
 * Standalone mode's auth key material: AUTH_KEY_ENCRYPTION_KEY / AUTH_SECRET_PEPPER when set,
 * else random keys made on first start and kept (mode 0600) in the data folder, reused after.
 * The environment the services start with, with the keys added.
 */
export async function withStandaloneKeyMaterial(dataDir: string, env: Env): Promise<Env> {
  if (env['AUTH_KEY_ENCRYPTION_KEY'] && env['AUTH_SECRET_PEPPER']) return env;
  const folder = resolve(dataDir);
  const file = join(folder, 'auth-keys.json');
  if (!existsSync(file)) await createKeyFile(folder, file);
  const keys = JSON.parse(await readFile(file, 'utf8')) as StoredKeys;
  // Whoever created it, only the owner reads it.
  await chmod(file, 0o600);
  return {
    ...env,
    AUTH_KEY_ENCRYPTION_KEY: env['AUTH_KEY_ENCRYPTION_KEY'] ?? keys.keyEncryptionKey,
    AUTH_SECRET_PEPPER: env['AUTH_SECRET_PEPPER'] ?? keys.secretPepper,
    AUTH_PREVIOUS_KEY_ENCRYPTION_KEY:
      env['AUTH_PREVIOUS_KEY_ENCRYPTION_KEY'] ?? legacyDevelopmentKey('key-encryption'),
    AUTH_PREVIOUS_SECRET_PEPPER:
      env['AUTH_PREVIOUS_SECRET_PEPPER'] ?? `base64:${legacyDevelopmentKey('secret-pepper')}`,
  };
}

/** Written aside and linked into place: two processes starting at once agree on one file. */
async function createKeyFile(folder: string, file: string): Promise<void> {
  const keys: StoredKeys = {
    keyEncryptionKey: randomBytes(32).toString('base64url'),
    secretPepper: randomBytes(32).toString('base64url'),
  };
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
}
