import type { Session } from './auth/session';
import type { CliEnv } from './config/cli-env';
import type { Output } from './output';

/** What every command group gets: settings from the environment, the session, the output. */
export interface CliContext {
  env: CliEnv;
  session: Session;
  /** Resolved when the command runs, after global options (`--json`) are parsed. */
  output(): Output;
}
