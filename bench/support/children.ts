/**
 * The bench processes' children: a bench/support script forked with the bench's options,
 * its output in a log file of its own, ready once it says so over IPC.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LoadOptions, LoadResult } from './load';

export interface Started {
  child: ChildProcess;
  url: string;
  services: Record<string, string>;
  readyMs: number;
}

const ROOT = join(__dirname, '..', '..');

/** `node -r ./tools/register.js`: TypeScript run as is. */
const REGISTER = ['-r', join(ROOT, 'tools', 'register.js')];

/**
 * The Node options `npm start` runs the platform with (package.json's `start` script, between
 * `node` and the script: `-r ./tools/register.js` and the young generation's size, ADR 0045).
 * Every process a bench measures runs with them, the bare baselines too: the same runtime.
 */
export function startOptions(packageJson = join(ROOT, 'package.json')): string[] {
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  if (words[0] !== 'node') throw new Error(`npm start does not run node: ${scripts.start}`);
  // A preload named relative to the checkout (`-r ./tools/register.js`) is that checkout's.
  return words
    .slice(1, -1)
    .map((word) => (word.startsWith('./') ? join(dirname(packageJson), word) : word));
}

/** Where `script`'s output goes, under `logPrefix` (e.g. `comanda-bench`). */
export function childLog(logPrefix: string, script: string): string {
  return join(tmpdir(), `${logPrefix}-${script.replace(/\.ts$/, '')}.log`);
}

/**
 * Forks bench/support/`script` and waits for its `ready` message. Its log goes to a file:
 * connections a load generator drops at the end of a run are logged, and would bury the
 * figures. BENCH_CPU_PROF=<dir> runs it with `--cpu-prof`, its profile in that directory;
 * BENCH_NODE_FLAGS adds Node flags (e.g. `--trace-gc`, split on spaces) to every process
 * started here (baselines, platform, chain); the load generator is not one of them.
 * `tree`: the script of another checkout (bench:ab's worktree), run in that checkout, with that
 * checkout's `npm start` options; `nodeFlags` come after them (the last of a flag counts);
 * `node`: another Node binary than this process's (bench:ab's AB_NODE_BEFORE/AFTER).
 */
export function startChild(
  script: string,
  env: Record<string, string | undefined>,
  logPrefix = 'comanda-bench',
  tree?: string,
  nodeFlags: string[] = [],
  node?: string,
): Promise<Started> {
  const started = performance.now();
  const log = openSync(childLog(logPrefix, script), 'w');
  const child = fork(tree ? join(tree, 'bench', 'support', script) : join(__dirname, script), [], {
    cwd: tree,
    execPath: node,
    execArgv: [
      ...startOptions(tree ? join(tree, 'package.json') : undefined),
      ...nodeFlags,
      ...(process.env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
    ],
    // A variable given as undefined is left out of the child's environment.
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log, 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before ready`)));
    child.once('message', (message: { url: string; services?: Record<string, string> }) =>
      resolve({
        child,
        url: message.url,
        services: message.services ?? {},
        readyMs: performance.now() - started,
      }),
    );
  });
}

/** Disconnects the child (it stops itself on that) and waits for it to exit. */
export function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.disconnect();
  });
}

/**
 * Runs `work` inside a CPU profile of the child (bench/support/platform-server.ts), written to
 * `file`; without `file`, just runs it.
 */
export async function withProfile<T>(
  child: ChildProcess,
  file: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (!file) return work();
  await askChild(child, { profile: 'start' }, 'profiling');
  try {
    return await work();
  } finally {
    await askChild(child, { profile: 'stop', file }, 'profiled');
  }
}

/** Sends `message` to the child and waits for its reply, the first message holding `answer`. */
export function askChild(
  child: ChildProcess,
  message: object,
  answer: string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const listener = (reply: unknown) => {
      if (typeof reply !== 'object' || reply === null || !(answer in reply)) return;
      child.off('message', listener);
      resolve(reply as Record<string, unknown>);
    };
    child.on('message', listener);
    child.send(message);
  });
}

/**
 * Linux `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses):
 * index 0 is field 3 (state), index 1 the parent's pid, 11 and 12 utime and stime, 13 and
 * 14 the CPU time of reaped children, all in ticks of 10 ms.
 */
export function procStatFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time a process has used so far, in ms (Linux `/proc/<pid>/stat`, ticks of 10 ms). */
export function processCpuMs(pid: number | undefined): { user: number; total: number } {
  const fields = procStatFields(String(pid));
  const user = Number(fields[11]) * 10;
  return { user, total: user + Number(fields[12]) * 10 };
}

/**
 * The machine's CPU time so far, in ticks (Linux `/proc/stat`): all of it, the time no task
 * ran (`idle`, waiting on I/O included), and what the hypervisor gave to other guests while
 * this one wanted to run (`steal`).
 */
export function machineCpuTicks(): { total: number; idle: number; steal: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const values = ticks.map(Number);
  // user nice system idle iowait irq softirq steal (guest time is inside user already)
  return {
    total: values.slice(0, 8).reduce((a, b) => a + b, 0),
    idle: values[3] + values[4],
    steal: values[7] ?? 0,
  };
}

/** The share of the machine's CPU time stolen by other guests between two readings, in %. */
export function stolenPercent(
  before: ReturnType<typeof machineCpuTicks>,
  after: ReturnType<typeof machineCpuTicks>,
): number {
  const total = after.total - before.total;
  return total > 0 ? (100 * (after.steal - before.steal)) / total : NaN;
}

/** A process's resident set size now, in MB (Linux `/proc/<pid>/status`). */
export function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/**
 * One load run (bench/support/load.ts) in a process of its own, so that it shares no
 * event loop with what it measures; `onCpu`: pinned to that CPU with `taskset`.
 */
export function runLoad(options: LoadOptions, onCpu?: number): Promise<LoadResult> {
  const args = [...REGISTER, join(__dirname, 'load.ts'), JSON.stringify(options)];
  const child =
    onCpu === undefined
      ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('taskset', ['-c', String(onCpu), process.execPath, ...args], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      // A run with no expected answer has no percentiles: JSON carries NaN as null.
      const result = JSON.parse(output.trim()) as LoadResult;
      resolve({ ...result, p50: result.p50 ?? NaN, p99: result.p99 ?? NaN });
    });
  });
}
