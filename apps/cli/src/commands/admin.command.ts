import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import type { CliContext } from '../cli-context';
import { table } from '../output';
import { commaList, positiveInteger } from './list-option';

interface TenantView {
  id: string;
  name: string;
  issuerHost?: string | null;
}

interface CreatedClient {
  clientId: string;
  clientSecret?: string;
  credentialsFile?: string;
  passphrase?: string;
}

interface CreateClientOptions {
  name: string;
  tenantIds: string[];
  environment: string;
  permissions: string[];
  personalData?: boolean;
  primaryContact: string;
  secondaryContact: string;
  useCase: string;
  credentialsFile?: string;
}

/** Items of a list answer, whether the API returns a bare array or `{ items: [...] }`. */
function itemsOf<T>(answer: T[] | { items: T[] }): T[] {
  return Array.isArray(answer) ? answer : answer.items;
}

const path = (...segments: string[]) => `/${segments.map(encodeURIComponent).join('/')}`;

/** `comanda admin tenants|clients|permissions ...`: support staff's side of the admin API (platform:admin). */
export function registerAdminCommands(program: Command, context: CliContext): void {
  const admin = program
    .command('admin')
    .description('platform administration (needs a platform:admin token)');

  const tenants = admin.command('tenants').description('tenants of the platform');
  tenants
    .command('create')
    .description('create a tenant')
    .requiredOption('--id <id>', 'tenant id (lowercase, used in URLs)')
    .requiredOption('--name <name>', 'display name')
    .option('--issuer-host <host>', "the tenant's own token issuer host")
    .action(async (options: { id: string; name: string; issuerHost?: string }) => {
      const api = await context.session.client();
      const tenant = await api.post<TenantView>('/admin/tenants', {
        id: options.id,
        name: options.name,
        ...(options.issuerHost ? { issuerHost: options.issuerHost } : {}),
      });
      context.output().result(tenant, () => `Created tenant ${tenant.id} (${tenant.name}).`);
    });

  tenants
    .command('list')
    .description('list tenants')
    .action(async () => {
      const api = await context.session.client();
      const list = itemsOf(await api.get<TenantView[] | { items: TenantView[] }>('/admin/tenants'));
      context.output().result(list, () =>
        table(
          ['ID', 'NAME', 'ISSUER HOST'],
          list.map((tenant) => [tenant.id, tenant.name, tenant.issuerHost ?? undefined]),
        ),
      );
    });

  const clients = admin.command('clients').description('API clients (credentials of integrators)');
  clients
    .command('create')
    .description('create a client; its secret is shown once')
    .requiredOption('--name <name>', 'client name')
    .requiredOption('--tenant-ids <ids>', 'tenant ids, comma-separated', commaList)
    .requiredOption('--environment <env>', 'test or production')
    .requiredOption(
      '--permissions <permissions>',
      'permissions, comma-separated (least privilege)',
      commaList,
    )
    .option('--personal-data', 'may read personal data (grants personal-data:read)')
    .requiredOption('--primary-contact <contact>', 'primary contact channel')
    .requiredOption('--secondary-contact <contact>', 'a different secondary contact channel')
    .requiredOption('--use-case <text>', 'what the client is for')
    .option(
      '--credentials-file <path>',
      'write an encrypted credentials file here instead of printing the secret',
    )
    .action(async (options: CreateClientOptions) => {
      const api = await context.session.client();
      const created = await api.post<CreatedClient>('/admin/clients', {
        name: options.name,
        tenantIds: options.tenantIds,
        environment: options.environment,
        permissions: options.permissions,
        personalData: options.personalData === true,
        contacts: { primary: options.primaryContact, secondary: options.secondaryContact },
        useCase: options.useCase,
        ...(options.credentialsFile ? { credentialsFile: true } : {}),
      });
      const output = context.output();
      if (options.credentialsFile && created.credentialsFile !== undefined) {
        await writeFile(options.credentialsFile, created.credentialsFile, { mode: 0o600 });
        output.result(
          {
            clientId: created.clientId,
            credentialsFile: options.credentialsFile,
            passphrase: created.passphrase,
          },
          () =>
            [
              `Created client ${created.clientId}.`,
              `Encrypted credentials written to ${options.credentialsFile}.`,
              `Passphrase (send it by the other contact channel than the file): ${created.passphrase}`,
            ].join('\n'),
        );
        return;
      }
      output.result(created, () =>
        [
          `Created client ${created.clientId}.`,
          `Client secret (shown once, store it now): ${created.clientSecret}`,
        ].join('\n'),
      );
    });

  clients
    .command('grant')
    .description('add permissions to a client')
    .argument('<clientId>', 'client id')
    .requiredOption('--permissions <permissions>', 'permissions to add, comma-separated', commaList)
    .action(async (clientId: string, options: { permissions: string[] }) => {
      const api = await context.session.client();
      const client = await api.post<{ permissions?: string[] }>(
        path('admin', 'clients', clientId, 'permissions'),
        {
          permissions: options.permissions,
        },
      );
      context
        .output()
        .result(
          client,
          () =>
            `Granted ${options.permissions.join(', ')} to ${clientId}.${client?.permissions ? ` Now: ${client.permissions.join(', ')}.` : ''}`,
        );
    });

  clients
    .command('rotate-secret')
    .description('issue a new secret; the old one keeps working for the grace period')
    .argument('<clientId>', 'client id')
    .option(
      '--grace-period-seconds <seconds>',
      'how long the old secret stays valid',
      positiveInteger,
    )
    .action(async (clientId: string, options: { gracePeriodSeconds?: number }) => {
      const api = await context.session.client();
      const rotated = await api.post<{ clientSecret: string }>(
        path('admin', 'clients', clientId, 'secret'),
        options.gracePeriodSeconds === undefined
          ? {}
          : { gracePeriodSeconds: options.gracePeriodSeconds },
      );
      context
        .output()
        .result(
          rotated,
          () => `New secret for ${clientId} (shown once, store it now): ${rotated.clientSecret}`,
        );
    });

  clients
    .command('revoke')
    .description('revoke a client: it gets no more tokens')
    .argument('<clientId>', 'client id')
    .action(async (clientId: string) => {
      const api = await context.session.client();
      await api.delete(path('admin', 'clients', clientId));
      context.output().result({ clientId, revoked: true }, () => `Revoked client ${clientId}.`);
    });

  admin
    .command('permissions')
    .description('list every permission and the endpoints it opens')
    .action(async () => {
      const api = await context.session.client();
      const list = itemsOf(
        await api.get<
          | Array<{ name: string; endpoints?: string[] }>
          | { items: Array<{ name: string; endpoints?: string[] }> }
        >('/admin/permissions'),
      );
      context.output().result(list, () =>
        table(
          ['PERMISSION', 'ENDPOINTS'],
          list.map((p) => [p.name, p.endpoints?.join(', ')]),
        ),
      );
    });
}
