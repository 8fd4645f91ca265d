import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@comanda/platform';
import { waitFor } from '@comanda/testing';
import {
  isReady,
  killGroup,
  startStandaloneProcess,
  type StandaloneProcess,
} from './standalone-process';

const ROOT = resolve(__dirname, '../../../..');

/** Runs the real `npm start` entry with nothing configured but a port and a data folder. */
function startStandalone(
  port: number,
  dataDir: string,
): { child: ChildProcess; output: () => string } {
  let output = '';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    COMANDA_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  delete env.COMANDA_ADMIN_CLIENT_ID;
  delete env.COMANDA_ADMIN_CLIENT_SECRET;
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** How the process ended: its exit code, or the signal that ended it. */
function exited(child: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.exitCode ?? child.signalCode);
  }
  return new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(code ?? signal)),
  );
}

async function ready(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
  return response.status === 200;
}

describe('standalone mode (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'comanda-standalone-'));
  let running: ReturnType<typeof startStandalone> | undefined;

  afterEach(async () => {
    if (
      running?.child.exitCode === null &&
      running.child.signalCode === null &&
      running.child.pid
    ) {
      process.kill(-running.child.pid, 'SIGKILL');
      await exited(running.child);
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves a ready platform on the given port with nothing else installed, stops on Ctrl-C and reuses its data', async () => {
    const port = await freePort();
    running = startStandalone(port, dataDir);
    await waitFor('the standalone platform to be ready', () => ready(port), {
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    expect(running.output()).toContain(`http://localhost:${port}`);
    // Not on port 3000: the command it says to type next names the URL the CLI must use.
    expect(running.output()).toContain(
      `npm run comanda -- login --url http://localhost:${port} --credentials-file`,
    );
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'admin-credentials.json'))).toBe(true);

    // Ctrl-C reaches the whole process group, as in a terminal: npm itself ends on the
    // signal, Comanda's own process stops gracefully and exits 0.
    process.kill(-(running.child.pid as number), 'SIGINT');
    expect([0, 'SIGINT']).toContain(await exited(running.child));
    await waitFor(
      'the graceful stop to finish',
      () => running?.output().includes('stopped cleanly'),
      {
        timeoutMs: 30_000,
      },
    );
    expect(running.output()).not.toMatch(/shutdown failed|exiting now|longer than/);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();

    running = startStandalone(port, dataDir);
    await waitFor('the restarted platform to be ready', () => ready(port), {
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    expect(running.output()).not.toContain('initialising PostgreSQL');
  }, 240_000);

  it('writes one request line per request the gateway hands to a service, naming the service', async () => {
    const port = await freePort();
    const settings = { PORT: String(port), COMANDA_DATA_DIR: dataDir, LOG_FORMAT: 'json' };
    const process_ = startStandaloneProcess(settings, process.env);
    try {
      await waitFor('the platform to be ready', () => isReady(port), {
        timeoutMs: 90_000,
        intervalMs: 250,
      });
      // The gateway hands the key set request to the auth service in process (ADR 0036);
      // with no tenant of that issuer host, auth itself answers 404.
      const response = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`, {
        headers: { 'x-request-id': 'one-line-1' },
      });
      expect(await response.json()).toMatchObject({ code: 'auth.tenant_not_found' });
      const linesOf = () =>
        process_
          .output()
          .split('\n')
          .filter((line) => line.includes('"one-line-1"') && line.includes('"request completed"'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      await waitFor('the request line', () => linesOf().length > 0);
      // A later request's line is written after this one's, had there been a second.
      await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`, {
        headers: { 'x-request-id': 'one-line-2' },
      });
      await waitFor('the next request line', () => process_.output().includes('"one-line-2"'));
      expect(linesOf()).toEqual([
        expect.objectContaining({
          service: 'gateway',
          upstream: 'auth',
          requestId: 'one-line-1',
          res: { statusCode: response.status },
        }),
      ]);
      // The headers the caller sent, not those the hand-off gave the service.
      const { headers } = linesOf()[0].req as { headers: Record<string, string> };
      expect(headers).toMatchObject({ host: `127.0.0.1:${port}`, 'x-request-id': 'one-line-1' });
      expect(headers).not.toHaveProperty('x-forwarded-for');
      expect(headers).not.toHaveProperty('traceparent');

      // A body of unannounced length reaches the service over an in-process connection
      // instead (ADR 0035): still one line, the gateway's.
      const chunked = await fetch(`http://127.0.0.1:${port}/auth/nowhere/connect/token`, {
        method: 'POST',
        headers: {
          'x-request-id': 'one-line-chunked',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new Blob(['grant_type=client_credentials']).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBeGreaterThanOrEqual(400);
      await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`, {
        headers: { 'x-request-id': 'one-line-3' },
      });
      await waitFor('the next request line', () => process_.output().includes('"one-line-3"'));
      const chunkedLines = process_
        .output()
        .split('\n')
        .filter((line) => line.includes('"one-line-chunked"') && line.includes('"request'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(chunkedLines).toEqual([
        expect.objectContaining({ service: 'gateway', upstream: 'auth' }),
      ]);
    } finally {
      await killGroup(process_);
    }
  }, 180_000);

  it('starts again after a kill -9 or a closed terminal, its database stopped with it', async () => {
    const port = await freePort();
    const settings = { PORT: String(port), COMANDA_DATA_DIR: dataDir, LOG_FORMAT: 'json' };
    let process_: StandaloneProcess | undefined;
    try {
      for (const signal of ['SIGKILL', 'SIGHUP'] as const) {
        process_ = startStandaloneProcess(settings, process.env);
        await waitFor('the platform to be ready', () => isReady(port), {
          timeoutMs: 90_000,
          intervalMs: 250,
        });
        const child = process_.child;
        // SIGKILL: the Comanda process alone, as the OOM killer does. SIGHUP: the terminal's
        // whole process group, as closing the terminal does.
        if (signal === 'SIGKILL') child.kill('SIGKILL');
        else process.kill(-(child.pid as number), 'SIGHUP');
        await process_.exited();
        await waitFor(
          'its PostgreSQL to stop with it',
          () => !existsSync(join(dataDir, 'postgres', 'postmaster.pid')),
          { timeoutMs: 30_000 },
        );
      }
      process_ = startStandaloneProcess(settings, process.env);
      await waitFor('the platform to be ready once more', () => isReady(port), {
        timeoutMs: 90_000,
        intervalMs: 250,
      });
      expect(process_.output()).not.toMatch(/lock file|already running/);
    } finally {
      await killGroup(process_);
    }
  }, 300_000);
});
