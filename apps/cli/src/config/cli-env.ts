import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the CLI takes from its environment; flags win over these. */
export interface CliEnv {
  url?: string;
  tenant?: string;
  clientId?: string;
  clientSecret?: string;
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
    configDir:
      nonEmpty(env.COMANDA_CONFIG_DIR) ??
      join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(homedir(), '.config'), 'comanda'),
  };
}
