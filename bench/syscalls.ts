/**
 * Where a request's CPU time goes (user against kernel, and in PostgreSQL's processes) and
 * the system calls it makes: the baseline, the same-work baseline and the platform's paths
 * (straight read, gateway read, token), each loaded by autocannon for BENCH_SECONDS (8) in
 * BENCH_WINDOWS (2) windows taken in turn, `perf stat` counting the system calls of the
 * loaded process over each window. Answers "does the platform make system calls the bare
 * server does not?" (it makes the same ones; its distance is user-space CPU). Needs
 * PostgreSQL as `npm run bench` does (on this machine for its CPU column, read from /proc;
 * `NaN` otherwise), and `perf` with the syscall tracepoints readable (as root with
 * kernel.perf_event_paranoid ≤ 2); without perf it prints the CPU columns only. `errors`:
 * answers of another status than expected, and socket errors.
 *
 *   npm run bench:syscalls
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { Client } from 'pg';
import { CONFIG_PATH, withBenchServers, type PathLoad } from './support/bench-platform';
import { processCpuMs, procStatFields, runLoad, type Started } from './support/children';
import { summarise, wholeSecondWindows, type ClosedLoopRun } from './support/load-runs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '8');
const WINDOWS = Math.max(1, Math.floor(Number(process.env.BENCH_WINDOWS ?? '2')));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? '50');
const SYSCALLS = ['writev', 'write', 'read', 'futex', 'epoll_pwait'];
const EVENTS = [...SYSCALLS.map((name) => `syscalls:sys_enter_${name}`), 'context-switches'];

const perfWorks =
  spawnSync('perf', ['stat', '-x,', '-e', EVENTS.join(','), '--', 'true'], { encoding: 'utf8' })
    .status === 0;

/**
 * Counts EVENTS in process `pid` from now until `stop` (perf stat -x, prints
 * `value,unit,event,…` lines when interrupted), so that the count spans the whole load run.
 */
function countEvents(pid: number): { stop(): Promise<Map<string, number>> } {
  const counts = new Map<string, number>();
  if (!perfWorks) return { stop: () => Promise.resolve(counts) };
  const perf = spawn('perf', ['stat', '-x,', '-e', EVENTS.join(','), '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  perf.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close': its output read to the end, not only the process gone.
  const exited = new Promise<void>((resolve) => perf.once('close', () => resolve()));
  return {
    async stop() {
      perf.kill('SIGINT');
      await exited;
      for (const line of output.split('\n')) {
        const [value, , event] = line.split(',');
        if (event && Number.isFinite(Number(value)))
          counts.set(event.replace('syscalls:sys_enter_', ''), Number(value));
      }
      return counts;
    },
  };
}

/**
 * The postmaster of the PostgreSQL server at `databaseUrl`, when it runs on this machine (the
 * parent of a backend of ours), else undefined: its CPU cannot be read.
 */
async function postmasterOf(databaseUrl: string): Promise<number | undefined> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return Number(procStatFields(rows[0].pid)[1]);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * CPU time of that PostgreSQL server so far, in ms: its postmaster's, with the children it
 * has reaped (a backend that ended), and its live children's (backends, background workers).
 * Taken around a target's runs, it is what the database spent meanwhile, its background
 * work (the platform's pollers) included.
 */
function postgresCpuMs(postmaster: number): number {
  // utime, stime, cutime, cstime are fields 14 to 17.
  const [, , , , , , , , , , , utime, stime, cutime, cstime] =
    procStatFields(postmaster).map(Number);
  let ms = (utime + stime + cutime + cstime) * 10;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = procStatFields(entry);
      if (Number(fields[1]) === postmaster) ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ms;
}

interface Target {
  name: string;
  server: Started;
  load: PathLoad;
  runs: ClosedLoopRun[];
  userMs: number;
  systemMs: number;
  postgresMs: number;
  events: Map<string, number>;
}

async function main(): Promise<void> {
  await withBenchServers(async ({ baseline, platform, paths, databaseUrl }) => {
    const postmaster = await postmasterOf(databaseUrl);
    const databaseCpuMs = () => (postmaster === undefined ? NaN : postgresCpuMs(postmaster));
    const target = (name: string, server: Started, load: PathLoad): Target => ({
      name,
      server,
      load,
      runs: [],
      userMs: 0,
      systemMs: 0,
      postgresMs: 0,
      events: new Map(),
    });
    const targets = [
      target('baseline', baseline, { url: `${baseline.url}${CONFIG_PATH}`, expectStatus: 200 }),
      target('same-work baseline', baseline, {
        url: `${baseline.url}/same-work${CONFIG_PATH}`,
        expectStatus: 200,
      }),
      target('config read straight', platform, paths.direct),
      target('config read via gateway', platform, paths.gateway),
      target('token endpoint', platform, paths.token),
    ];
    for (const { load } of targets)
      await runLoad({ ...load, connections: CONNECTIONS, durationSeconds: 3 });
    const windowSeconds = wholeSecondWindows(SECONDS, WINDOWS);
    for (let window = 0; window < WINDOWS; window++) {
      for (const measured of targets) {
        const pid = measured.server.child.pid as number;
        const before = processCpuMs(pid);
        const postgresBefore = databaseCpuMs();
        const counting = countEvents(pid);
        const result = await runLoad({
          ...measured.load,
          connections: CONNECTIONS,
          durationSeconds: windowSeconds,
        });
        const after = processCpuMs(pid);
        measured.postgresMs += databaseCpuMs() - postgresBefore;
        measured.runs.push(...(result.runs ?? []));
        measured.userMs += after.user - before.user;
        measured.systemMs += after.total - after.user - (before.total - before.user);
        for (const [event, count] of await counting.stop())
          measured.events.set(event, (measured.events.get(event) ?? 0) + count);
      }
    }
    const columns = perfWorks ? [...SYSCALLS, 'context-switches'] : [];
    console.log(
      `\nper request, ${WINDOWS * windowSeconds} s per target in ${WINDOWS} windows taken in turn, ${CONNECTIONS} connections${perfWorks ? '' : ' (perf unavailable: no system call counts)'}\n`,
    );
    console.log(
      `${'target'.padEnd(24)} ${'req/s'.padStart(7)} ${'user µs'.padStart(8)} ${'sys µs'.padStart(7)} ${'pg µs'.padStart(6)} ${'errors'.padStart(6)} ${columns.map((name) => name.padStart(Math.max(7, name.length))).join(' ')}`,
    );
    for (const measured of targets) {
      const { perSecond, requests, failures } = summarise(measured.runs);
      const per = (value: number) => value / Math.max(1, requests);
      console.log(
        `${measured.name.padEnd(24)} ${perSecond.toFixed(0).padStart(7)} ${(1000 * per(measured.userMs)).toFixed(0).padStart(8)} ${(1000 * per(measured.systemMs)).toFixed(0).padStart(7)} ${(1000 * per(measured.postgresMs)).toFixed(0).padStart(6)} ${String(failures).padStart(6)} ${columns
          .map((name) =>
            per(measured.events.get(name) ?? NaN)
              .toFixed(2)
              .padStart(Math.max(7, name.length)),
          )
          .join(' ')}`,
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
