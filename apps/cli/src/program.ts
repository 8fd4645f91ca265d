import { Command } from 'commander';
import { Session } from './auth/session';
import type { CliContext } from './cli-context';
import { registerAdminCommands } from './commands/admin.command';
import { registerDeadLettersCommand } from './commands/dead-letters.command';
import { registerLoginCommand } from './commands/login.command';
import { registerPartnerCommand } from './commands/partner.command';
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
    .option(
      '--profile <name>',
      'token profile to use (env COMANDA_PROFILE; default: the last login)',
    )
    .showHelpAfterError();
  // The global option reaches every command through the session's settings.
  program.hook('preAction', () => {
    const profile = program.opts<{ profile?: string }>().profile;
    if (profile) env.profile = profile;
  });

  const context: CliContext = {
    env,
    session: new Session(env),
    output: () =>
      new Output(streams.stdout, streams.stderr, program.opts<{ json?: boolean }>().json === true),
  };

  registerLoginCommand(program, context);
  registerAdminCommands(program, context);
  registerPluginsCommand(program, context);
  registerPartnerCommand(program, context);
  registerDeadLettersCommand(program, context);
  return program;
}
