import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@comanda/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { Deployment, DeploymentProcess, StartOptions } from './deployment';
import { delay, EXIT_WITH_RUNNER, ROOT, tail } from './processes';

/**
 * The platform as `npm start` runs it, in a child process: an attack that ends the process
 * ends it, not the test runner, and the test sees it. Own database, own data folder, free port.
 */
export async function startStandaloneDeployment(
  label: string,
  options: StartOptions = {},
): Promise<Deployment> {
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
  const output = tail();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '-r',
      EXIT_WITH_RUNNER,
      '-r',
      './tools/register.js',
      join(ROOT, 'apps/standalone/src/main.ts'),
    ],
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
  child.stdout?.on('data', output.append);
  child.stderr?.on('data', output.append);
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
        throw new Error(`the platform exited while starting:\n${output.text()}`);
      }),
    ]);
  } catch (error) {
    await close();
    throw error;
  }
  const alive = () => child.exitCode === null && child.signalCode === null;
  const front: DeploymentProcess = {
    name: 'standalone',
    port,
    url: baseUrl,
    pid: child.pid ?? 0,
    alive,
    output: output.text,
  };
  return {
    target: 'standalone',
    baseUrl,
    port,
    admin,
    dataDir,
    databaseUrl: database.url,
    front,
    processes: [front],
    internal: [],
    alive,
    output: output.text,
    stop,
    close,
  };
}
