import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

interface StoredAuthKeys {
  keyEncryptionKey: string;
  secretPepper: string;
}

interface StoredSecretsKey {
  secretsKey: string;
}

/**
 * What earlier versions of standalone mode used when nothing was set: keys derived from a
 * constant. Only ever passed as the *previous* keys, so data they sealed is re-sealed with
 * the random keys on the first start of this version and then no longer depends on them.
 */
function legacyDevelopmentKey(purpose: string): string {
  return createHash('sha256').update(`comanda development key: ${purpose}`).digest('base64url');
}

const randomKey = () => randomBytes(32).toString('base64url');

/**
 * Standalone mode's key material, each key from the environment when set, else random keys
 * made on first start and kept (mode 0600) in the data folder, reused after:
 * AUTH_KEY_ENCRYPTION_KEY / AUTH_SECRET_PEPPER (`auth-keys.json`) and COMANDA_SECRETS_KEY,
 * which seals secrets kept by orders, payments and notifications (`secrets-key.json`).
 * The environment the services start with, with the keys added.
 */
export async function withStandaloneKeyMaterial(dataDir: string, env: Env): Promise<Env> {
  const folder = resolve(dataDir);
  let result = env;
  if (!env['AUTH_KEY_ENCRYPTION_KEY'] || !env['AUTH_SECRET_PEPPER']) {
    const keys = await keyFile<StoredAuthKeys>(folder, 'auth-keys.json', () => ({
      keyEncryptionKey: randomKey(),
      secretPepper: randomKey(),
    }));
    result = {
      ...result,
      AUTH_KEY_ENCRYPTION_KEY: env['AUTH_KEY_ENCRYPTION_KEY'] ?? keys.keyEncryptionKey,
      AUTH_SECRET_PEPPER: env['AUTH_SECRET_PEPPER'] ?? keys.secretPepper,
      AUTH_PREVIOUS_KEY_ENCRYPTION_KEY:
        env['AUTH_PREVIOUS_KEY_ENCRYPTION_KEY'] ?? legacyDevelopmentKey('key-encryption'),
      AUTH_PREVIOUS_SECRET_PEPPER:
        env['AUTH_PREVIOUS_SECRET_PEPPER'] ?? `base64:${legacyDevelopmentKey('secret-pepper')}`,
    };
  }
  if (!env['COMANDA_SECRETS_KEY']) {
    const { secretsKey } = await keyFile<StoredSecretsKey>(folder, 'secrets-key.json', () => ({
      secretsKey: randomKey(),
    }));
    result = { ...result, COMANDA_SECRETS_KEY: secretsKey };
  }
  return result;
}

/** The keys kept in `name`, made by `make` when the file does not exist yet. */
async function keyFile<T>(folder: string, name: string, make: () => T): Promise<T> {
  const file = join(folder, name);
  if (!existsSync(file)) await createKeyFile(folder, file, make());
  const keys = JSON.parse(await readFile(file, 'utf8')) as T;
  // Whoever created it, only the owner reads it.
  await chmod(file, 0o600);
  return keys;
}

/** Written aside and linked into place: two processes starting at once agree on one file. */
async function createKeyFile(folder: string, file: string, keys: unknown): Promise<void> {
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
