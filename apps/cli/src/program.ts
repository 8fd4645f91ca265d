import { Command } from 'commander';
import { Session } from './auth/session';
import type { CliContext } from './cli-context';
import { registerAdminCommands } from './commands/admin.command';
import { registerLoginCommand } from './commands/login.command';
import { registerPluginsCommand } from './commands/plugins.command';
import type { CliEnv } from './config/cli-env';
import { Output } from './output';

/**
 * The `comanda` command. A command group is a `register...(program, context)` function in
 * `commands/`, added to the list below; it calls the API through `context.session.client()`.
 */
export function buildProgram(
  env: CliEnv,
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Command {
  const program = new Command('comanda')
    .description('Comanda command line: log in with client credentials and call the API')
    .option('--json', 'print results as JSON')
    .showHelpAfterError();

  const context: CliContext = {
    env,
    session: new Session(env),
    output: () =>
      new Output(streams.stdout, streams.stderr, program.opts<{ json?: boolean }>().json === true),
  };

  registerLoginCommand(program, context);
  registerAdminCommands(program, context);
  registerPluginsCommand(program, context);
  return program;
}
