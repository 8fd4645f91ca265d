import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../../..');

export interface StandaloneProcess {
  child: ChildProcess;
  output(): string;
  exited(): Promise<number | NodeJS.Signals | null>;
}

/**
 * Runs the standalone entry as `npm start` does (`node -r ./tools/register.js …main.ts`), in a
 * process group of its own as a terminal would, with the test's environment and the given
 * settings only: no database or
 * broker URL, no admin credentials unless given.
 */
export function startStandaloneProcess(
  settings: Record<string, string>,
  inherited: NodeJS.ProcessEnv,
): StandaloneProcess {
  let output = '';
  const env: NodeJS.ProcessEnv = { ...inherited, LOG_LEVEL: 'info', ...settings };
  for (const name of [
    'DATABASE_URL',
    'AMQP_URL',
    'COMANDA_ADMIN_CLIENT_ID',
    'COMANDA_ADMIN_CLIENT_SECRET',
  ]) {
    if (!(name in settings)) delete env[name];
  }
  const child = spawn(
    process.execPath,
    ['-r', './tools/register.js', 'apps/standalone/src/main.ts'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | NodeJS.Signals | null>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(code ?? signal)),
  );
  return { child, output: () => output, exited: () => exit };
}

export async function isReady(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
  return response?.status === 200;
}

/** Ends a process group the test started, if it still runs. */
export async function killGroup(running: StandaloneProcess | undefined): Promise<void> {
  const { child } = running ?? {};
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    process.kill(-child.pid, 'SIGKILL');
    await running?.exited();
  }
}
