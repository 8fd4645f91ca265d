import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startPlatform, type RunningPlatform } from '@comanda/platform';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { authService } from '@comanda/service-auth';
import { gatewayService } from '@comanda/service-gateway';

const ROOT = resolve(__dirname, '../../..');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `comanda` entry, as `npm run comanda -- ...` runs it. */
function comanda(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      ['-r', './tools/register.js', 'apps/cli/src/main.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolveRun({ code, stdout, stderr });
      },
    );
  });
}

describe('comanda CLI against a running platform', () => {
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  const configDir = mkdtempSync(join(tmpdir(), 'comanda-cli-'));
  let database: TestDatabase;
  let platform: RunningPlatform;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_cli');
    platform = await startPlatform({
      port: 0,
      // What the CLI talks to: the gateway in front of the auth service, as in every deployment.
      services: [authService, gatewayService],
      env: Object.freeze({
        DATABASE_URL: database.url,
        COMANDA_ENVIRONMENT: 'test',
        COMANDA_ADMIN_CLIENT_ID: admin.clientId,
        COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
        LOG_LEVEL: 'warn',
      }),
    });
    env = {
      COMANDA_CONFIG_DIR: configDir,
      COMANDA_URL: platform.baseUrl,
      COMANDA_TENANT: 'platform',
      COMANDA_CLIENT_ID: admin.clientId,
    };
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await database?.drop();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('login caches the token (owner-only file) and never prints the secret', async () => {
    const run = await comanda(['login', '--scope', 'platform:admin'], {
      ...env,
      COMANDA_CLIENT_SECRET: admin.clientSecret,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Logged in');
    expect(run.stdout + run.stderr).not.toContain(admin.clientSecret);

    const path = join(configDir, 'tokens.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(path, 'utf8')) as {
      current: string;
      profiles: Record<string, Record<string, unknown>>;
    };
    const cached = file.profiles[file.current];
    expect(cached).toMatchObject({
      clientId: admin.clientId,
      tenant: 'platform',
      scope: 'platform:admin',
    });
    expect(typeof cached['accessToken']).toBe('string');
    expect(cached['expiresAt'] as number).toBeGreaterThan(Date.now() + 60_000);
    expect(JSON.stringify(cached)).not.toContain(admin.clientSecret);
  });

  it('admin tenants create and list use the cached token (no secret in the environment)', async () => {
    const tenantId = `cli-${randomBytes(3).toString('hex')}`;
    const created = await comanda(
      ['admin', 'tenants', 'create', '--id', tenantId, '--name', 'CLI Tenant'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created tenant ${tenantId}`);

    const listed = await comanda(['admin', 'tenants', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${tenantId}\\s+CLI Tenant`, 'm'));

    const json = await comanda(['--json', 'admin', 'tenants', 'list'], env);
    expect(JSON.parse(json.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: tenantId })]),
    );
  });

  it('fails with exit code 1 and the problem title and detail when the API refuses', async () => {
    const tenantId = `dup-${randomBytes(3).toString('hex')}`;
    expect(
      (await comanda(['admin', 'tenants', 'create', '--id', tenantId, '--name', 'A'], env)).code,
    ).toBe(0);
    const again = await comanda(
      ['admin', 'tenants', 'create', '--id', tenantId, '--name', 'A'],
      env,
    );
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^error: .+\(HTTP 409\)/);
    expect(again.stderr).toMatch(/request id /);
  });

  it('creates a client, grants, rotates its secret and revokes it', async () => {
    const tenantId = `cli-c-${randomBytes(3).toString('hex')}`;
    await comanda(['admin', 'tenants', 'create', '--id', tenantId, '--name', 'Clients'], env);
    const created = await comanda(
      [
        '--json',
        'admin',
        'clients',
        'create',
        '--name',
        'pos integration',
        '--tenant-ids',
        tenantId,
        '--environment',
        'test',
        '--permissions',
        'configs:read',
        '--primary-contact',
        'ops@example.com',
        '--secondary-contact',
        '+41 44 000 00 00',
        '--use-case',
        'POS sync',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const { clientId, clientSecret } = JSON.parse(created.stdout) as {
      clientId: string;
      clientSecret: string;
    };
    expect(clientSecret.length).toBeGreaterThan(30);

    expect(
      (
        await comanda(
          ['admin', 'clients', 'grant', clientId, '--permissions', 'configs:write'],
          env,
        )
      ).code,
    ).toBe(0);
    const rotated = await comanda(
      ['--json', 'admin', 'clients', 'rotate-secret', clientId, '--grace-period-seconds', '0'],
      env,
    );
    expect(rotated.code).toBe(0);
    expect((JSON.parse(rotated.stdout) as { clientSecret: string }).clientSecret).not.toBe(
      clientSecret,
    );
    const revoked = await comanda(['admin', 'clients', 'revoke', clientId], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked client ${clientId}`);
  });

  it('dead-letters list shows every service’s dead letters; replay reports a failure; purge deletes', async () => {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const eventId = randomBytes(8).toString('hex');
    try {
      await client.query(
        `INSERT INTO auth.dead_letters (consumer, event_id, event_type, tenant_id, event, error, attempts)
         VALUES ('auth.gone', $1, 'config.updated', 'tenant-a', $2, 'handler exploded', 4)`,
        [eventId, JSON.stringify({ id: eventId, subject: 'cfg-9' })],
      );
    } finally {
      await client.end();
    }

    const listed = await comanda(['dead-letters', 'list'], env);
    expect(listed.code).toBe(0);
    const line = listed.stdout.split('\n').find((row) => row.includes('handler exploded'));
    expect(line).toMatch(/^auth\.[0-9]+\s+auth\.gone\s+config\.updated\s+tenant-a\s+cfg-9\s+4/);
    const id = (line as string).split(/\s+/)[0];

    const replay = await comanda(['dead-letters', 'replay', id], env);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('replaying');

    const purged = await comanda(['dead-letters', 'purge', id], env);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toContain(`Purged ${id}`);
    const after = await comanda(['--json', 'dead-letters', 'list'], env);
    expect(JSON.parse(after.stdout).items).toEqual([]);
  });

  it('says how to log in when there is no usable token and no secret to renew it', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'comanda-cli-empty-'));
    try {
      const run = await comanda(['admin', 'tenants', 'list'], {
        ...env,
        COMANDA_CONFIG_DIR: emptyDir,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Not logged in');
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it('logs in from credentials files, keeping each identity under its own profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'comanda-cli-files-'));
    const own = { COMANDA_CONFIG_DIR: dir, COMANDA_URL: platform.baseUrl };
    try {
      // Standalone's plain admin file: tenant `platform` is implied.
      const adminFile = join(dir, 'admin-credentials.json');
      writeFileSync(adminFile, JSON.stringify(admin), { mode: 0o600 });
      const asAdmin = await comanda(
        ['login', '--credentials-file', adminFile, '--profile', 'admin'],
        own,
      );
      expect(asAdmin.stderr).toBe('');
      expect(asAdmin.stdout).toContain('profile "admin"');

      const tenantId = `cli-f-${randomBytes(3).toString('hex')}`;
      await comanda(['admin', 'tenants', 'create', '--id', tenantId, '--name', 'Files'], own);
      const integratorFile = join(dir, 'pos.credentials');
      const created = await comanda(
        [
          '--json',
          'admin',
          'clients',
          'create',
          '--name',
          'pos',
          '--tenant-ids',
          tenantId,
          '--environment',
          'test',
          '--permissions',
          'configs:read',
          '--primary-contact',
          'ops@example.com',
          '--secondary-contact',
          '+41 44 000 00 01',
          '--use-case',
          'POS sync',
          '--credentials-file',
          integratorFile,
        ],
        own,
      );
      expect(created.code).toBe(0);
      const { passphrase } = JSON.parse(created.stdout) as { passphrase: string };

      const wrong = await comanda(['login', '--credentials-file', integratorFile], {
        ...own,
        COMANDA_CREDENTIALS_PASSPHRASE: 'not-it',
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('wrong passphrase');

      const asIntegrator = await comanda(['login', '--credentials-file', integratorFile], {
        ...own,
        COMANDA_CREDENTIALS_PASSPHRASE: passphrase,
      });
      expect(asIntegrator.stderr).toBe('');
      expect(asIntegrator.stdout).toContain(`(tenant ${tenantId})`);

      // The admin's token is still there, under its profile.
      const listed = await comanda(['--profile', 'admin', 'admin', 'tenants', 'list'], own);
      expect(listed.stderr).toBe('');
      expect(listed.stdout).toContain(tenantId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
