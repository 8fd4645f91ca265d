import { homedir } from 'node:os';
import { join } from 'node:path';

/** The gateway of a local `npm start`: what `login` talks to when no URL is given. */
export const DEFAULT_URL = 'http://localhost:3000';

/** What the CLI takes from its environment; flags win over these. */
export interface CliEnv {
  url?: string;
  tenant?: string;
  clientId?: string;
  clientSecret?: string;
  /** Token profile to use (`--profile` wins); else the last login's. */
  profile?: string;
  /** Passphrase of an encrypted credentials file given to `login --credentials-file`. */
  passphrase?: string;
  /** Where the token cache lives: `COMANDA_CONFIG_DIR`, else `~/.config/comanda`. */
  configDir: string;
}

/** The CLI's one reader of the process environment, so secrets stay out of shell history. */
export function readCliEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const nonEmpty = (value: string | undefined) => (value ? value : undefined);
  return {
    url: nonEmpty(env.COMANDA_URL),
    tenant: nonEmpty(env.COMANDA_TENANT),
    clientId: nonEmpty(env.COMANDA_CLIENT_ID),
    clientSecret: nonEmpty(env.COMANDA_CLIENT_SECRET),
    profile: nonEmpty(env.COMANDA_PROFILE),
    passphrase: nonEmpty(env.COMANDA_CREDENTIALS_PASSPHRASE),
    configDir:
      nonEmpty(env.COMANDA_CONFIG_DIR) ??
      join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(homedir(), '.config'), 'comanda'),
  };
}
