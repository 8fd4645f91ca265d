import { waitFor } from '@comanda/testing';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ensureAdminCredentials } from './admin-credentials';
import {
  privateSocketDir,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from './embedded-postgres';
import { serviceUrlVariable } from './start-platform';

describe('platform composition', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'comanda-platform-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('names each service URL variable after the service', () => {
    expect(serviceUrlVariable('auth')).toBe('AUTH_URL');
    expect(serviceUrlVariable('plugin-registry')).toBe('PLUGIN_REGISTRY_URL');
  });

  it('makes the admin credentials once, keeps them private, and prefers the environment', async () => {
    const made = await ensureAdminCredentials(dataDir, {});
    expect(made.clientSecret.length).toBeGreaterThanOrEqual(43);
    expect(statSync(made.file as string).mode & 0o777).toBe(0o600);
    expect(await ensureAdminCredentials(dataDir, {})).toEqual(made);
    expect(
      await ensureAdminCredentials(dataDir, {
        COMANDA_ADMIN_CLIENT_ID: 'ops',
        COMANDA_ADMIN_CLIENT_SECRET: 'x'.repeat(40),
      }),
    ).toEqual({ clientId: 'ops', clientSecret: 'x'.repeat(40) });
    // The id has its documented default: a secret alone is taken.
    expect(
      await ensureAdminCredentials(dataDir, { COMANDA_ADMIN_CLIENT_SECRET: 'y'.repeat(40) }),
    ).toEqual({ clientId: 'platform-admin', clientSecret: 'y'.repeat(40) });
  });

  it('runs an embedded PostgreSQL whose data survives a restart', async () => {
    const logger = new Logger('test');
    const first = await startEmbeddedPostgres(dataDir, logger);
    let client = new Client({ connectionString: first.url });
    await client.connect();
    await client.query('CREATE TABLE kept (value text)');
    await client.query(`INSERT INTO kept VALUES ('still here')`);
    await client.end();
    await first.stop();

    const second = await startEmbeddedPostgres(dataDir, logger);
    try {
      client = new Client({ connectionString: second.url });
      await client.connect();
      const { rows } = await client.query('SELECT value FROM kept');
      await client.end();
      expect(rows).toEqual([{ value: 'still here' }]);
      // The platform connects over a socket in the server's own data folder (0700), not in
      // /tmp; tools reach the port on loopback only; both ask for the password.
      const port = Number(new URL(second.url).port);
      const socketDir = decodeURIComponent(new URL(second.url).hostname);
      expect(socketDir).toBe(second.databaseDir);
      expect(statSync(join(socketDir, `.s.PGSQL.${port}`)).isSocket()).toBe(true);
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
      expect(existsSync(`/tmp/.s.PGSQL.${port}`)).toBe(false);
      const password = decodeURIComponent(new URL(second.url).password);
      const overTcp = new Client({
        host: '127.0.0.1',
        port,
        user: 'postgres',
        password,
        database: 'postgres',
      });
      await overTcp.connect();
      await overTcp.end();
      for (const connectionString of [
        second.url.replace(/:[^:@/]+@/, ':wrong@'),
        `postgres://postgres:wrong@127.0.0.1:${port}/postgres`,
      ]) {
        const anonymous = new Client({ connectionString });
        await expect(anonymous.connect()).rejects.toThrow(/password authentication failed/);
      }
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('puts the server’s socket in its data folder only where a socket address can hold the path', () => {
    expect(privateSocketDir('/srv/comanda/postgres', 5432)).toBe('/srv/comanda/postgres');
    // 103 bytes at most (macOS); Linux holds 107.
    const fits = `/${'d'.repeat(103 - '/'.length - '/.s.PGSQL.40000'.length)}`;
    expect(privateSocketDir(fits, 40000)).toBe(fits);
    expect(privateSocketDir(`${fits}x`, 40000)).toBeUndefined();
    // The setting is a comma-separated list of folders.
    expect(privateSocketDir('/srv/a,b/postgres', 5432)).toBeUndefined();
    expect(privateSocketDir('/srv/"a"/postgres', 5432)).toBeUndefined();
  });

  it('runs from a checkout and a data folder inside a private (0700) folder, as root or not', async () => {
    // A fresh `mktemp -d` is 0700: as root, the unprivileged user that runs PostgreSQL cannot
    // traverse it to the binaries (a checkout there) or to the data.
    const privateDir = mkdtempSync(join(tmpdir(), 'comanda-private-'));
    const packageDir = dirname(
      dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
    );
    symlinkSync(packageDir, join(privateDir, 'package'));
    const logs: string[] = [];
    const logger = {
      log: (line: string) => logs.push(line),
      warn: (line: string) => logs.push(line),
      error: () => undefined,
    };
    const options = { binariesDir: join(privateDir, 'package', 'native') };
    const data = join(privateDir, 'data');
    let server: EmbeddedPostgres | undefined;
    try {
      server = await startEmbeddedPostgres(data, logger, options);
      let client = new Client({ connectionString: server.url });
      await client.connect();
      await client.query('CREATE TABLE kept (value text)');
      await client.end();
      await server.stop();

      server = await startEmbeddedPostgres(data, logger, options);
      client = new Client({ connectionString: server.url });
      await client.connect();
      await expect(client.query('SELECT count(*) FROM kept')).resolves.toBeDefined();
      await client.end();
    } finally {
      await server?.stop();
      if (server && !server.databaseDir.startsWith(privateDir)) {
        rmSync(dirname(server.databaseDir), { recursive: true, force: true });
      }
      rmSync(privateDir, { recursive: true, force: true });
    }
    expect(logs.join('\n')).not.toMatch(/error/i);
  }, 120_000);

  it('stops a server an earlier start left running once its owner was killed, saying so in one line', async () => {
    const logs: string[] = [];
    const logger = {
      log: (line: string) => logs.push(line),
      warn: (line: string) => logs.push(`WARN ${line}`),
      error: () => undefined,
    };
    const first = await startEmbeddedPostgres(dataDir, logger);
    // Kill the guard that would stop it when this process ends (as a kill -9 of the whole
    // group would): the server is left running on the data folder.
    const pid = Number(
      readFileSync(join(first.databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const guard = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    // The guard's pipe watcher would otherwise stop the server: kill it first, as a kill -9
    // of the whole group except the server would.
    for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      const child = Number(entry);
      if (child === pid || child === guard) continue;
      try {
        const line = readFileSync(`/proc/${child}/stat`, 'utf8');
        if (Number(line.slice(line.lastIndexOf(')') + 2).split(' ')[1]) === guard) {
          process.kill(child, 'SIGKILL');
        }
      } catch {
        // gone meanwhile
      }
    }
    process.kill(guard, 'SIGKILL');
    // A signal is delivered asynchronously: start again only once the guard is really gone.
    await waitFor('the guard to be gone', async () =>
      existsSync(`/proc/${guard}`) ? undefined : true,
    );

    const second = await startEmbeddedPostgres(dataDir, logger);
    try {
      expect(logs.filter((line) => line.startsWith('WARN'))).toEqual([
        `WARN stopping the PostgreSQL (pid ${pid}) an earlier start of this data folder left running`,
      ]);
      const client = new Client({ connectionString: second.url });
      await client.connect();
      await client.end();
    } finally {
      await second.stop();
      await first.stop();
    }
  }, 60_000);
});
