import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A token obtained by `comanda login`, with what is needed to use and renew it (never the secret). */
export interface CachedToken {
  url: string;
  tenant: string;
  clientId: string;
  scope: string;
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A token is used until this long before it expires, so a call never races its expiry. */
export const EXPIRY_MARGIN_MS = 60_000;

/** `token.json` in the config directory, readable by its owner only (0600, directory 0700). */
export class TokenCache {
  readonly path: string;

  constructor(private readonly directory: string) {
    this.path = join(directory, 'token.json');
  }

  /** The cached token while it is still usable at `now`, else undefined. */
  async usable(now = Date.now()): Promise<CachedToken | undefined> {
    const token = await this.read();
    return token && token.expiresAt - EXPIRY_MARGIN_MS > now ? token : undefined;
  }

  async read(): Promise<CachedToken | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const value = JSON.parse(text) as Partial<CachedToken>;
    return typeof value.accessToken === 'string' && typeof value.expiresAt === 'number'
      ? (value as CachedToken)
      : undefined;
  }

  async write(token: CachedToken): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await writeFile(this.path, `${JSON.stringify(token, null, 2)}\n`, { mode: 0o600 });
    // writeFile keeps the mode of a file that already existed.
    await chmod(this.path, 0o600);
  }

  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }
}
