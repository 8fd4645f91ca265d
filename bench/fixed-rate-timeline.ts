/**
 * `npm run bench:timeline`: what the machine did in the slow slices of a fixed-rate run. A
 * read at 70 % of its maximum, as `npm run bench` runs the gateway read, with its 100 ms
 * slices (by planned instant) lined up with what this process sampled every 100 ms while the
 * load generator ran in its own: the CPU time of the server, of PostgreSQL's backends and of
 * its background processes, of the generator, of the kernel's threads, of the machine's other
 * servers; the time tasks stalled waiting for a CPU and on I/O (Linux pressure stall
 * information); and, from the server itself (timeline-recorder.ts), its main thread's busy
 * time and its garbage collections. Prints the slow slices against the others, then every
 * slice.
 *
 * BENCH_SIDE=gateway (default), direct or baseline: the platform's read through the gateway,
 * straight to the config store, or the bare baseline's read. BENCH_RATE: that rate instead
 * of 70 % of a maximum measured first. BENCH_SECONDS (default 20) the measured time,
 * BENCH_CONNECTIONS (50). BENCH_GENERATOR_CPU=<n>: the generator pinned to CPU n.
 * BENCH_PROFILE=<file.cpuprofile>: a CPU profile of the platform over the run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import {
  askChild,
  machineCpuTicks,
  processCpuMs,
  procStatFields,
  runLoad,
  withProfile,
} from './support/children';
import { CONFIG_PATH, withBenchServers } from './support/bench-platform';
import type { LoadOptions, LoadResult, Slice } from './support/load';
import type { ServerTimeline } from './support/timeline-recorder';

const SIDE = process.env.BENCH_SIDE ?? 'gateway';
if (!['gateway', 'direct', 'baseline'].includes(SIDE)) {
  throw new Error(`BENCH_SIDE must be gateway, direct or baseline, not "${SIDE}"`);
}
const SECONDS = Number(process.env.BENCH_SECONDS ?? '20');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? '50');
const GENERATOR_CPU =
  process.env.BENCH_GENERATOR_CPU === undefined
    ? undefined
    : Number(process.env.BENCH_GENERATOR_CPU);
const SAMPLE_MS = 100;
/** BENCH_PROFILE=<file>: a CPU profile of the platform over the fixed-rate run (the baseline takes none). */
const PROFILE = process.env.BENCH_PROFILE;
/** The machine's other servers, which the bench does not use. */
const DAEMONS = new Set(['beam.smp', 'mariadbd', 'redis-server', 'nats-server', 'mosquitto']);

/** CPU time by kind of process, in ticks of 10 ms, cumulative. */
interface ProcessTicks {
  server: number;
  backends: number;
  background: number;
  generator: number;
  kernel: number;
  daemons: number;
  sampler: number;
}

/** Cumulative counters at one instant: CPU in ticks of 10 ms, stalls in µs. */
interface Sample extends ProcessTicks {
  atEpochMs: number;
  machineBusy: number;
  machineTotal: number;
  ioFullUs: number;
  cpuSomeUs: number;
}
type Counter = Exclude<keyof Sample, 'atEpochMs'>;

/**
 * Every process's CPU time by kind: the measured server; PostgreSQL's backends (their title
 * names the client's address) and its background work (checkpointer, WAL writer,
 * autovacuum, ...); the load generator; the kernel's threads (children of kthreadd); the
 * machine's other servers; this process. Processes that end during a run take their ticks
 * with them: none of these do.
 */
function processTicks(serverPid: number): ProcessTicks {
  const sums: ProcessTicks = {
    server: 0,
    backends: 0,
    background: 0,
    generator: 0,
    kernel: 0,
    daemons: 0,
    sampler: 0,
  };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const fields = procStatFields(pid);
      const used = Number(fields[11]) + Number(fields[12]);
      if (used === 0) continue;
      if (Number(pid) === serverPid) sums.server += used;
      else if (Number(pid) === process.pid) sums.sampler += used;
      else if (fields[1] === '2') sums.kernel += used;
      else {
        const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (comm === 'postgres') {
          if (/\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title)) sums.backends += used;
          else sums.background += used;
        } else if (title.includes('support/load.ts')) sums.generator += used;
        else if (DAEMONS.has(comm)) sums.daemons += used;
      }
    } catch {
      // It ended between the listing and the reading.
    }
  }
  return sums;
}

/** `total=` of a line of /proc/pressure/<resource>, in µs. */
function stalledUs(resource: 'io' | 'cpu', line: 'some' | 'full'): number {
  const text = readFileSync(`/proc/pressure/${resource}`, 'utf8');
  return Number(new RegExp(`^${line} .*total=(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
}

function sample(serverPid: number): Sample {
  const machine = machineCpuTicks();
  return {
    atEpochMs: performance.timeOrigin + performance.now(),
    ...processTicks(serverPid),
    machineBusy: machine.total - machine.idle,
    machineTotal: machine.total,
    ioFullUs: stalledUs('io', 'full'),
    cpuSomeUs: stalledUs('cpu', 'some'),
  };
}

/** A cumulative series' value at an instant, linear between the two samples around it. */
function valueAt<T extends { atEpochMs: number }>(
  series: T[],
  epochMs: number,
  value: (point: T) => number,
): number {
  let index = series.findIndex((point) => point.atEpochMs >= epochMs);
  if (index === -1) index = series.length - 1;
  index = Math.max(1, index);
  const [a, b] = [series[index - 1], series[index]];
  const share = (epochMs - a.atEpochMs) / Math.max(1e-9, b.atEpochMs - a.atEpochMs);
  return value(a) + (value(b) - value(a)) * Math.min(1, Math.max(0, share));
}

const COLUMNS = [
  'server',
  'mainMs',
  'gcMs',
  'backends',
  'background',
  'generator',
  'kernel',
  'daemons',
  'sampler',
  'idle',
  'cpuWaitMs',
  'ioFullMs',
] as const;
type Column = (typeof COLUMNS)[number];
type Row = Slice & Record<Column, number>;

function rows(
  slices: Slice[],
  fromEpochMs: number,
  samples: Sample[],
  server: ServerTimeline,
): Row[] {
  return slices.map((slice, index) => {
    const start = fromEpochMs + index * 100;
    const delta = (counter: Counter) =>
      valueAt(samples, start + 100, (s) => s[counter]) - valueAt(samples, start, (s) => s[counter]);
    // Ticks of 10 ms in a 100 ms slice, × 10: % of one core.
    const cores = (counter: Counter) => delta(counter) * 10;
    const busy = (at: number) => valueAt(server.busy, at, (b) => b.activeMs);
    return {
      ...slice,
      server: cores('server'),
      mainMs: busy(start + 100) - busy(start),
      gcMs: server.collections
        .filter((gc) => gc.atEpochMs >= start && gc.atEpochMs < start + 100)
        .reduce((sum, gc) => sum + gc.ms, 0),
      backends: cores('backends'),
      background: cores('background'),
      generator: cores('generator'),
      kernel: cores('kernel'),
      daemons: cores('daemons'),
      sampler: cores('sampler'),
      idle: cores('machineTotal') - cores('machineBusy'),
      cpuWaitMs: delta('cpuSomeUs') / 1000,
      ioFullMs: delta('ioFullUs') / 1000,
    };
  });
}

function mean(group: Row[], column: Column): string {
  if (group.length === 0) return '-';
  return (group.reduce((sum, row) => sum + row[column], 0) / group.length).toFixed(1);
}

/** A process's CPU time per request over `work`, user and system apart, in µs. */
async function cpuPerRequest<T extends { requests: number }>(
  pid: number,
  work: () => Promise<T>,
  requests: (result: T) => number = (result) => result.requests,
): Promise<{ result: T; userUs: number; systemUs: number }> {
  const before = processCpuMs(pid);
  const result = await work();
  const after = processCpuMs(pid);
  const count = Math.max(1, requests(result));
  const user = after.user - before.user;
  const system = after.total - before.total - user;
  return { result, userUs: (1000 * user) / count, systemUs: (1000 * system) / count };
}

interface Timeline {
  rate: number;
  run: LoadResult;
  timeline: Row[];
  /** The server's CPU per request as fast as it goes (closed loop) and at the fixed rate. */
  cpu: { closed: CpuPerRequest; fixed: CpuPerRequest };
}
type CpuPerRequest = { userUs: number; systemUs: number };

async function timelineOf(
  server: ChildProcess,
  load: Omit<LoadOptions, 'connections' | 'durationSeconds'>,
): Promise<Timeline> {
  const pid = server.pid as number;
  await runLoad({ ...load, connections: CONNECTIONS, durationSeconds: 3 });
  const closed = await cpuPerRequest(pid, () =>
    runLoad({ ...load, connections: CONNECTIONS, durationSeconds: 9 }),
  );
  const rate = Number(process.env.BENCH_RATE ?? Math.round(closed.result.perSecond * 0.7));
  const samples: Sample[] = [sample(pid)];
  const timer = setInterval(() => samples.push(sample(pid)), SAMPLE_MS);
  await askChild(server, { timeline: 'start' }, 'timelineStarted');
  const fixed = await withProfile(server, SIDE === 'baseline' ? undefined : PROFILE, () =>
    cpuPerRequest(
      pid,
      () =>
        runLoad(
          {
            ...load,
            connections: CONNECTIONS,
            durationSeconds: SECONDS,
            overallRate: rate,
            timeline: true,
          },
          GENERATOR_CPU,
        ),
      // Every request of the run, its warm-up included, as the CPU time is the whole run's.
      (result) => result.launched ?? NaN,
    ),
  );
  const run = fixed.result;
  const answer = await askChild(server, { timeline: 'stop' }, 'timeline');
  clearInterval(timer);
  samples.push(sample(pid));
  const timeline = rows(
    run.slices ?? [],
    run.measuredFromEpochMs ?? NaN,
    samples,
    answer.timeline as ServerTimeline,
  );
  return { rate, run, timeline, cpu: { closed, fixed } };
}

async function main(): Promise<void> {
  await withBenchServers(async ({ baseline, platform, paths }) => {
    const [server, load] =
      SIDE === 'baseline'
        ? [baseline.child, { url: `${baseline.url}${CONFIG_PATH}`, expectStatus: 200 }]
        : [platform.child, SIDE === 'direct' ? paths.direct : paths.gateway];
    const { rate, run, timeline, cpu } = await timelineOf(server, load);
    const slow = timeline.filter((row) => row.slow > 0);
    console.log(
      `\n${SIDE} read at a fixed ${rate} req/s for ${SECONDS} s: p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, ${run.failures} errors; ${slow.length} of ${timeline.length} 100-ms slices had a request over 20 ms`,
    );
    const perRequest = ({ userUs, systemUs }: CpuPerRequest) =>
      `${userUs.toFixed(0)} µs user + ${systemUs.toFixed(0)} µs system`;
    console.log(
      `the server's CPU per request: ${perRequest(cpu.fixed)} at this rate; ${perRequest(cpu.closed)} as fast as it goes (closed loop, 9 s before)`,
    );
    console.log(
      `\nper 100 ms slice, CPU in % of one core: the ${SIDE === 'baseline' ? 'baseline' : 'platform'}'s process (server), PostgreSQL's backends and background processes, the generator, the kernel's threads, the other servers (daemons), this sampler, idle (of 200);`,
    );
    console.log(
      "in ms: the server's main thread busy (mainMs, wall time), its garbage collections (gcMs), some task waiting for a CPU (cpuWaitMs), all tasks stalled on I/O (ioFullMs)\n",
    );
    console.log(['', 'slices', ...COLUMNS].map((h) => h.padStart(11)).join(''));
    for (const [name, group] of [
      ['slow', slow],
      ['others', timeline.filter((row) => row.slow === 0)],
    ] as const) {
      console.log(
        [name, String(group.length), ...COLUMNS.map((c) => mean(group, c))]
          .map((cell) => cell.padStart(11))
          .join(''),
      );
    }
    console.log(
      `\nevery slice: index, answered, over 20 ms, slowest ms, ${COLUMNS.join(', ')}; * when slow`,
    );
    for (const [index, row] of timeline.entries()) {
      console.log(
        [
          String(index).padStart(4),
          String(row.answered).padStart(6),
          String(row.slow).padStart(6),
          row.maxMs.toFixed(1).padStart(7),
          ...COLUMNS.map((c) => row[c].toFixed(0).padStart(7)),
          row.slow > 0 ? '  *' : '',
        ].join(''),
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
