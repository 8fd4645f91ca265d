import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { useDataFolder } from './data-folder';

/** The admin client's id when COMANDA_ADMIN_CLIENT_ID is not set (README, compose, k8s). */
export const DEFAULT_ADMIN_CLIENT_ID = 'platform-admin';

export interface AdminCredentials {
  clientId: string;
  clientSecret: string;
  /** Where they are kept, when standalone mode made them. */
  file?: string;
}

/**
 * The platform admin client (docs/architecture.md) comes from COMANDA_ADMIN_CLIENT_ID /
 * COMANDA_ADMIN_CLIENT_SECRET. Standalone mode must work with nothing set, so when they are
 * absent it makes a pair once and keeps it (mode 0600) beside the embedded database.
 */
export async function ensureAdminCredentials(
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<AdminCredentials> {
  const clientId = env['COMANDA_ADMIN_CLIENT_ID'] || DEFAULT_ADMIN_CLIENT_ID;
  const clientSecret = env['COMANDA_ADMIN_CLIENT_SECRET'];
  if (clientSecret) return { clientId, clientSecret };

  await useDataFolder(resolve(dataDir));
  const file = join(resolve(dataDir), 'admin-credentials.json');
  if (existsSync(file)) {
    const stored = JSON.parse(await readFile(file, 'utf8')) as AdminCredentials;
    return { clientId: stored.clientId, clientSecret: stored.clientSecret, file };
  }
  const made = { clientId, clientSecret: randomBytes(32).toString('base64url') };
  await writeFile(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return { ...made, file };
}
