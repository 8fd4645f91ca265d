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
  /** Epoch milliseconds; absent in tokens kept by an older CLI. */
  obtainedAt?: number;
}

interface TokenFile {
  /** The profile commands use when none is named. */
  current?: string;
  profiles: Record<string, CachedToken>;
}

/** A token is used until this long before it expires, so a call never races its expiry. */
export const EXPIRY_MARGIN_MS = 60_000;

/**
 * The margin for one token: EXPIRY_MARGIN_MS, but never more than a tenth of its lifetime
 * (a platform may issue tokens of a minute, TOKEN_LIFETIME_SECONDS' minimum).
 */
function marginOf(token: CachedToken): number {
  if (token.obtainedAt === undefined) return EXPIRY_MARGIN_MS;
  return Math.min(EXPIRY_MARGIN_MS, (token.expiresAt - token.obtainedAt) / 10);
}

/** The profile of an identity when none is named: one per (URL, tenant, client). */
export function defaultProfile(token: Pick<CachedToken, 'url' | 'tenant' | 'clientId'>): string {
  return `${token.clientId}@${token.tenant}@${token.url}`;
}

/**
 * `tokens.json` in the config directory, readable by its owner only (0600, directory 0700):
 * one token per profile, so logging in as an integrator never replaces the admin's token.
 * The last login is the current profile; `--profile` / COMANDA_PROFILE choose another.
 */
export class TokenCache {
  readonly path: string;

  constructor(private readonly directory: string) {
    this.path = join(directory, 'tokens.json');
  }

  /** The profile's token while it is still usable at `now`, else undefined. */
  async usable(now = Date.now(), profile?: string): Promise<CachedToken | undefined> {
    const token = await this.read(profile);
    return token && token.expiresAt - marginOf(token) > now ? token : undefined;
  }

  /** The named profile's token, else the current one's. */
  async read(profile?: string): Promise<CachedToken | undefined> {
    const file = await this.load();
    const name = profile ?? file.current;
    return name === undefined ? undefined : file.profiles[name];
  }

  async profiles(): Promise<{ current?: string; names: string[] }> {
    const file = await this.load();
    return { current: file.current, names: Object.keys(file.profiles).sort() };
  }

  /** Keeps the token under its profile, which becomes the current one. */
  async write(token: CachedToken, profile = defaultProfile(token)): Promise<string> {
    const file = await this.load();
    file.profiles[profile] = token;
    file.current = profile;
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await writeFile(this.path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    // writeFile keeps the mode of a file that already existed.
    await chmod(this.path, 0o600);
    return profile;
  }

  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }

  private async load(): Promise<TokenFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw error;
    }
    const value = JSON.parse(text) as Partial<TokenFile>;
    const profiles = Object.fromEntries(
      Object.entries(value.profiles ?? {}).filter(
        ([, token]) =>
          typeof token?.accessToken === 'string' && typeof token.expiresAt === 'number',
      ),
    );
    return { current: value.current, profiles };
  }
}
