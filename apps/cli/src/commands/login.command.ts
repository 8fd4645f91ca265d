import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { readCredentialsFile } from '../auth/credentials-file';
import { CliError } from '../cli-error';
import type { CliContext } from '../cli-context';
import { DEFAULT_URL } from '../config/cli-env';

interface LoginOptions {
  url?: string;
  tenant?: string;
  clientId?: string;
  clientSecret?: string;
  credentialsFile?: string;
  passphraseFile?: string;
  scope?: string[];
}

export function registerLoginCommand(program: Command, context: CliContext): void {
  program
    .command('login')
    .description(
      'get an access token with client credentials and keep it (one per URL, tenant and client, or per --profile) until shortly before it expires',
    )
    .option('--url <url>', `gateway base URL (env COMANDA_URL, default ${DEFAULT_URL})`)
    .option(
      '--tenant <tenant>',
      'tenant whose issuer signs the token, `platform` for admin (env COMANDA_TENANT)',
    )
    .option('--client-id <id>', 'client id (env COMANDA_CLIENT_ID)')
    .option(
      '--client-secret <secret>',
      'client secret; prefer env COMANDA_CLIENT_SECRET, flags end up in shell history',
    )
    .option(
      '--credentials-file <path>',
      "take client id and secret from a file: standalone's admin-credentials.json, or an encrypted file from `admin clients create --credentials-file`",
    )
    .option(
      '--passphrase-file <path>',
      "the encrypted file's passphrase (or env COMANDA_CREDENTIALS_PASSPHRASE)",
    )
    .option('--scope <scopes...>', 'permissions to ask for (default: all granted)')
    .action(async (options: LoginOptions) => {
      const { env, session } = context;
      const passphrase = options.passphraseFile
        ? (await readFile(options.passphraseFile, 'utf8')).trim()
        : env.passphrase;
      const file = options.credentialsFile
        ? await readCredentialsFile(options.credentialsFile, passphrase)
        : undefined;
      const fileTenants = file?.tenantIds ?? (file?.tokenEndpoints ? undefined : ['platform']);
      const tenant =
        options.tenant ?? env.tenant ?? (fileTenants?.length === 1 ? fileTenants[0] : undefined);
      const endpoint = tenant ? file?.tokenEndpoints?.[tenant] : undefined;
      const url =
        options.url ??
        env.url ??
        (endpoint ? endpoint.replace(/\/auth\/[^/]+\/connect\/token$/, '') : DEFAULT_URL);
      const clientId = options.clientId ?? file?.clientId ?? env.clientId;
      const clientSecret = options.clientSecret ?? file?.clientSecret ?? env.clientSecret;
      const missing = [
        !tenant &&
          (fileTenants && fileTenants.length > 1
            ? `--tenant (one of ${fileTenants.join(', ')})`
            : '--tenant (COMANDA_TENANT)'),
        !clientId && '--client-id (COMANDA_CLIENT_ID) or --credentials-file',
        !clientSecret && '--client-secret (COMANDA_CLIENT_SECRET) or --credentials-file',
      ].filter(Boolean);
      if (!tenant || !clientId || !clientSecret)
        throw new CliError(`login needs ${missing.join(', ')}`);

      const scope = options.scope
        ?.flatMap((entry) => entry.split(/[\s,]+/))
        .filter(Boolean)
        .join(' ');
      const { token, profile } = await session.login(
        { url, tenant, clientId, clientSecret, scope: scope || undefined },
        env.profile,
      );
      const summary = {
        url: token.url,
        tenant: token.tenant,
        clientId: token.clientId,
        scope: token.scope,
        expiresAt: new Date(token.expiresAt).toISOString(),
        profile,
        cache: session.cache.path,
      };
      context
        .output()
        .result(
          summary,
          () =>
            `Logged in to ${summary.url} as ${summary.clientId} (tenant ${summary.tenant}), profile "${profile}".\n` +
            `Scopes: ${summary.scope || '-'}\nToken valid until ${summary.expiresAt}, kept in ${summary.cache}.`,
        );
    });
}
