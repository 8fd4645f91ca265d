import type { Command } from 'commander';
import { CliError } from '../cli-error';
import type { CliContext } from '../cli-context';

interface LoginOptions {
  url?: string;
  tenant?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string[];
}

export function registerLoginCommand(program: Command, context: CliContext): void {
  program
    .command('login')
    .description(
      'get an access token with client credentials and cache it until shortly before it expires',
    )
    .option('--url <url>', 'gateway base URL (env COMANDA_URL)')
    .option(
      '--tenant <tenant>',
      'tenant whose issuer signs the token, `platform` for admin (env COMANDA_TENANT)',
    )
    .option('--client-id <id>', 'client id (env COMANDA_CLIENT_ID)')
    .option(
      '--client-secret <secret>',
      'client secret; prefer env COMANDA_CLIENT_SECRET, flags end up in shell history',
    )
    .option('--scope <scopes...>', 'permissions to ask for (default: all granted)')
    .action(async (options: LoginOptions) => {
      const { env, session } = context;
      const url = options.url ?? env.url;
      const tenant = options.tenant ?? env.tenant;
      const clientId = options.clientId ?? env.clientId;
      const clientSecret = options.clientSecret ?? env.clientSecret;
      const missing = [
        !url && '--url (COMANDA_URL)',
        !tenant && '--tenant (COMANDA_TENANT)',
        !clientId && '--client-id (COMANDA_CLIENT_ID)',
        !clientSecret && '--client-secret (COMANDA_CLIENT_SECRET)',
      ].filter(Boolean);
      if (!url || !tenant || !clientId || !clientSecret)
        throw new CliError(`login needs ${missing.join(', ')}`);

      const scope = options.scope
        ?.flatMap((entry) => entry.split(/[\s,]+/))
        .filter(Boolean)
        .join(' ');
      const token = await session.login({
        url,
        tenant,
        clientId,
        clientSecret,
        scope: scope || undefined,
      });
      const summary = {
        url: token.url,
        tenant: token.tenant,
        clientId: token.clientId,
        scope: token.scope,
        expiresAt: new Date(token.expiresAt).toISOString(),
        cache: session.cache.path,
      };
      context
        .output()
        .result(
          summary,
          () =>
            `Logged in to ${summary.url} as ${summary.clientId} (tenant ${summary.tenant}).\n` +
            `Scopes: ${summary.scope || '-'}\nToken valid until ${summary.expiresAt}, cached in ${summary.cache}.`,
        );
    });
}
