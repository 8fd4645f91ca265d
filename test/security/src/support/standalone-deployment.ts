import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';

const ROOT = join(__dirname, '..', '..', '..', '..');

export interface PlatformProcess {
  baseUrl: string;
  port: number;
  pid: number;
  admin: { clientId: string; clientSecret: string };
  dataDir: string;
  databaseUrl: string;
  /** True while the process runs: what every security test checks after its attack. */
  alive(): boolean;
  /** The process's output so far (for a failing test's message). */
  output(): string;
  /** Stops the process and keeps its database and data folder (for a restart). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse the database and data folder of a stopped platform. */
  reuse?: PlatformProcess;
}

/**
 * The platform as `npm start` runs it, in a child process: an attack that ends the process
 * ends it, not the test runner, and the test sees it. Own database, own data folder, free port.
 */
export async function startPlatformProcess(
  label: string,
  options: StartOptions = {},
): Promise<PlatformProcess> {
  const env = options.env ?? {};
  const database: Pick<TestDatabase, 'url' | 'drop'> = options.reuse
    ? { url: options.reuse.databaseUrl, drop: () => options.reuse?.close() ?? Promise.resolve() }
    : await createTestDatabase(`sec_${label}`);
  const port = await freePort();
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'comanda-sec-'));
  const admin = options.reuse?.admin ?? {
    clientId: 'platform-admin',
    clientSecret: randomBytes(32).toString('base64url'),
  };
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(ROOT, 'apps/standalone/src/main.ts')],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        COMANDA_DATA_DIR: dataDir,
        COMANDA_ADMIN_CLIENT_ID: admin.clientId,
        COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
        LOG_LEVEL: 'warn',
        // Suites run side by side against one PostgreSQL (100 connections): small pools.
        DB_POOL_SIZE: '4',
        OUTBOX_POLL_MS: '200',
        TIMER_POLL_MS: '200',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, delay(20_000).then(() => child.kill('SIGKILL'))]);
    await exited;
  };
  let closed = false;
  const close = async () => {
    await stop();
    if (closed) return;
    closed = true;
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await Promise.race([
      waitFor(
        'the platform to be ready',
        async () => {
          const response = await fetch(`${baseUrl}/health/ready`).catch(() => undefined);
          return response?.status === 200;
        },
        { timeoutMs: 90_000, intervalMs: 250 },
      ),
      exited.then(() => {
        throw new Error(`the platform exited while starting:\n${output}`);
      }),
    ]);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    baseUrl,
    port,
    pid: child.pid ?? 0,
    admin,
    dataDir,
    databaseUrl: database.url,
    stop,
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
    close,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
