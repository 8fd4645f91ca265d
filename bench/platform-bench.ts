/**
 * `npm run bench`: the platform's authenticated read path and token endpoint against the
 * limit of this machine, measured in the same run (issue 10). Prints req/s, p50 and p99 of
 * each path and its ratio to the baseline, p99 at 70 % of the gateway's maximum rate, the
 * platform's RSS after the run and its time from start to ready. Nothing is asserted: the
 * targets are read off the output (see bench/README.md).
 *
 * Needs PostgreSQL as the tests do (DATABASE_URL's server, or one on 127.0.0.1:5432).
 * BENCH_SECONDS (default 10) sets the measured time of each side of a comparison, in
 * BENCH_WINDOWS (3) windows of whole seconds taken in turn, and the length of the fixed-rate
 * runs; BENCH_CONNECTIONS (50) the concurrent connections of the load generator.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './support/load';
import { summarise, wholeSecondWindows, type ClosedLoopRun } from './support/load-runs';
import {
  machineCpuTicks,
  processCpuMs,
  stolenPercent,
  rssMb,
  runLoad,
  withProfile,
  type Started,
} from './support/children';
import { CONFIG_PATH, withBenchServers, type PathLoad } from './support/bench-platform';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const WARM_UP_SECONDS = 3;
/** Each comparison's sides take turns in this many windows (`measureInTurn`), at least one. */
const WINDOWS = Math.max(1, Math.floor(Number(process.env.BENCH_WINDOWS ?? '3')));
const WINDOW_SECONDS = wholeSecondWindows(SECONDS, WINDOWS);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? '50');
/** BENCH_ONLY=direct (or gateway, token): that path alone after the baseline, e.g. to profile it. */
const ONLY = process.env.BENCH_ONLY;
const runs = (name: string) => ONLY === undefined || ONLY === name;
/** BENCH_PROFILE=<dir>: a CPU profile of the platform over each measured window, `<dir>/<path>-<window>.cpuprofile`. */
const PROFILE_DIR = process.env.BENCH_PROFILE;
// The platform writes its profiles there; a missing directory would leave the run waiting.
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
const SKIPPED: Measured = {
  perSecond: NaN,
  p50: NaN,
  p99: NaN,
  requests: 0,
  failures: 0,
  cpuUsPerRequest: NaN,
  stolenPercent: NaN,
};

interface Row {
  name: string;
  result: Measured;
  /** The baseline, measured in turn with this path. */
  base: Measured;
  /** For the config reads: the same-work baseline, measured in turn with it too. */
  sameWork?: Measured;
}

interface Measured extends LoadResult {
  /** CPU time (user + system) of the measured process per request answered, in µs. */
  cpuUsPerRequest: number;
  /** The share of the machine's CPU time other guests took during the run (steal), in %. */
  stolenPercent: number;
}

/** One server under load: what to load it with, and the name of its profile (platform only). */
interface Side {
  options: PathLoad;
  server: Started;
  profileName?: string;
}

/**
 * The sides of one comparison (a baseline, the same-work baseline, a path), each warmed up,
 * then measured in WINDOWS windows of WINDOW_SECONDS taken in turn (base, same work, path,
 * base, …): a host whose speed drifts from one minute to the next slows every side
 * alike, and a ratio is taken over the same minutes. Each side's figures are over all of its
 * windows (autocannon's histograms merged); its CPU time is its server's over those windows.
 */
async function measureInTurn(sides: Side[]): Promise<Measured[]> {
  for (const side of sides) {
    await runLoad({ ...side.options, connections: CONNECTIONS, durationSeconds: WARM_UP_SECONDS });
  }
  const taken = sides.map(() => ({ runs: [] as ClosedLoopRun[], cpuMs: 0, total: 0, steal: 0 }));
  for (let window = 1; window <= WINDOWS; window++) {
    for (const [index, side] of sides.entries()) {
      const pid = side.server.child.pid;
      const profile =
        side.profileName && PROFILE_DIR
          ? join(PROFILE_DIR, `${side.profileName}-${window}.cpuprofile`)
          : undefined;
      const sum = taken[index];
      // Inside the profile's window: starting and writing a profile is not a request's CPU.
      const result = await withProfile(side.server.child, profile, async () => {
        const before = processCpuMs(pid).total;
        const machineBefore = machineCpuTicks();
        const loaded = await runLoad({
          ...side.options,
          connections: CONNECTIONS,
          durationSeconds: WINDOW_SECONDS,
        });
        const machineAfter = machineCpuTicks();
        sum.cpuMs += processCpuMs(pid).total - before;
        sum.total += machineAfter.total - machineBefore.total;
        sum.steal += machineAfter.steal - machineBefore.steal;
        return loaded;
      });
      sum.runs.push(...(result.runs ?? []));
    }
  }
  return taken.map((sum) => {
    const result = summarise(sum.runs);
    return {
      ...result,
      cpuUsPerRequest: (1000 * sum.cpuMs) / Math.max(1, result.requests),
      stolenPercent: sum.total > 0 ? (100 * sum.steal) / sum.total : NaN,
    };
  });
}

async function main(): Promise<void> {
  await withBenchServers(async ({ baseline, platform, paths }) => {
    const path = CONFIG_PATH;

    // On a shared machine the load of other work changes from one minute to the next: each
    // path is measured in turn with its baselines (measureInTurn), its ratio to theirs.
    const baselineOptions = { url: `${baseline.url}${path}`, expectStatus: 200 };
    const [first] = await measureInTurn([{ options: baselineOptions, server: baseline }]);
    const rows: Row[] = [
      { name: 'baseline: Fastify + pg, one indexed read', result: first, base: first },
    ];
    // The same read as the config store's, bare (baseline-server.ts): the work of the
    // request itself, so that the ratio to it is what the platform adds to that work.
    const sameWorkOptions = { url: `${baseline.url}/same-work${path}`, expectStatus: 200 };
    const beside = async (
      name: string,
      profileName: string,
      selected: boolean,
      options: PathLoad,
      withSameWork = false,
    ): Promise<Measured> => {
      // A path BENCH_ONLY leaves out has no row (a line of NaNs says nothing).
      if (!selected) return SKIPPED;
      const sides: Side[] = [{ options: baselineOptions, server: baseline }];
      if (withSameWork) sides.push({ options: sameWorkOptions, server: baseline });
      sides.push({ options, server: platform, profileName });
      const measured = await measureInTurn(sides);
      const result = measured[measured.length - 1];
      rows.push({
        name,
        result,
        base: measured[0],
        sameWork: withSameWork ? measured[1] : undefined,
      });
      return result;
    };
    const gateway = await beside(
      'config read through the gateway',
      'gateway',
      runs('gateway'),
      paths.gateway,
      true,
    );
    await beside(
      'config read straight to config-store',
      'direct',
      runs('direct'),
      paths.direct,
      true,
    );
    await beside('token endpoint (client credentials)', 'token', runs('token'), paths.token);
    // For reading the figures: the service's framework with nothing behind it (no token, no
    // database). Not a target; the distance from here to the read is what the read adds.
    await beside('for reference: config-store /health/live', 'health', runs('direct'), {
      url: `${platform.services['config-store']}/health/live`,
      expectStatus: 200,
    });
    const rate = Math.max(1, Math.round(gateway.perSecond * 0.7));
    const atFixedRate = async (options: PathLoad, at = rate): Promise<Measured> => {
      if (!runs('gateway')) return SKIPPED;
      const machineBefore = machineCpuTicks();
      const result = await runLoad({
        ...options,
        connections: CONNECTIONS,
        durationSeconds: SECONDS,
        overallRate: at,
      });
      return {
        ...result,
        cpuUsPerRequest: NaN,
        stolenPercent: stolenPercent(machineBefore, machineCpuTicks()),
      };
    };
    /** How much of the run was slow: bursts, or all along. */
    const slices = ({ slowSlices }: Measured) =>
      slowSlices
        ? `${slowSlices.slow} of ${slowSlices.of} 100-ms slices had a request over 20 ms`
        : '';
    const fixed = await atFixedRate(paths.gateway);
    // The baseline at the same rate: what the machine's own latency is at that load.
    const fixedBase = await atFixedRate(baselineOptions);
    // The baseline at 70 % of its own maximum: whether this machine keeps a p99 of 20 ms at
    // that share of a server's maximum at all, with the generator and PostgreSQL on its cores
    // (bench/README.md, 28 November 09:15–10:10).
    const baseRate = Math.max(1, Math.round(first.perSecond * 0.7));
    const fixedBaseOwn = await atFixedRate(baselineOptions, baseRate);
    const rss = rssMb(platform.child.pid);

    console.log(
      `\n${CONNECTIONS} connections, ${WINDOWS * WINDOW_SECONDS} s per path after ${WARM_UP_SECONDS} s of warm-up, in ${WINDOWS} windows taken in turn with its baselines; load from a separate process\n`,
    );
    console.log(
      `${'path'.padEnd(42)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'base req/s'.padStart(11)} ${'× base'.padStart(7)} ${'CPU µs/req'.padStart(11)} ${'base CPU'.padStart(9)} ${'stolen %'.padStart(9)}`,
    );
    for (const { name, result: r, base } of rows) {
      console.log(
        `${name.padEnd(42)} ${r.perSecond.toFixed(0).padStart(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${String(r.failures).padStart(7)} ${base.perSecond.toFixed(0).padStart(11)} ${(r.perSecond / base.perSecond).toFixed(2).padStart(7)} ${r.cpuUsPerRequest.toFixed(0).padStart(11)} ${base.cpuUsPerRequest.toFixed(0).padStart(9)} ${`${r.stolenPercent.toFixed(0)}/${base.stolenPercent.toFixed(0)}`.padStart(9)}`,
      );
    }
    const sameWorkRows = rows.filter((row) => row.sameWork);
    if (sameWorkRows.length > 0) {
      console.log(
        `\nagainst the same work, bare (Fastify + pg, the config store's own row, statement and answer body):`,
      );
      console.log(
        `${'path'.padEnd(42)} ${'req/s'.padStart(8)} ${'same-work req/s'.padStart(16)} ${'× same work'.padStart(12)} ${'CPU µs/req'.padStart(11)} ${'same-work CPU'.padStart(14)}`,
      );
      for (const { name, result: r, sameWork } of sameWorkRows) {
        const bare = sameWork as Measured;
        console.log(
          `${name.padEnd(42)} ${r.perSecond.toFixed(0).padStart(8)} ${bare.perSecond.toFixed(0).padStart(16)} ${(r.perSecond / bare.perSecond).toFixed(2).padStart(12)} ${r.cpuUsPerRequest.toFixed(0).padStart(11)} ${bare.cpuUsPerRequest.toFixed(0).padStart(14)}`,
        );
      }
    }
    if (runs('gateway')) {
      console.log(
        `\ngateway read at a fixed ${rate} req/s (70 % of its maximum, open loop): p50 ${fixed.p50.toFixed(1)} ms, p99 ${fixed.p99.toFixed(1)} ms, ${fixed.failures} errors (requests launched up to ${fixed.launchLagMs?.toFixed(0)} ms late; ${fixed.stolenPercent.toFixed(0)} % stolen; ${slices(fixed)})`,
      );
      console.log(
        `baseline at the same rate:                      p50 ${fixedBase.p50.toFixed(1)} ms, p99 ${fixedBase.p99.toFixed(1)} ms, ${fixedBase.failures} errors (up to ${fixedBase.launchLagMs?.toFixed(0)} ms late; ${fixedBase.stolenPercent.toFixed(0)} % stolen; ${slices(fixedBase)})`,
      );
      console.log(
        `baseline at 70 % of its own maximum, ${baseRate} req/s: p50 ${fixedBaseOwn.p50.toFixed(1)} ms, p99 ${fixedBaseOwn.p99.toFixed(1)} ms, ${fixedBaseOwn.failures} errors (up to ${fixedBaseOwn.launchLagMs?.toFixed(0)} ms late; ${fixedBaseOwn.stolenPercent.toFixed(0)} % stolen; ${slices(fixedBaseOwn)})`,
      );
    } else {
      console.log('\n(no fixed-rate run: BENCH_ONLY leaves the gateway read out)');
    }
    console.log(`platform RSS after the run: ${rss.toFixed(0)} MB`);
    console.log(
      `time from start to ready: platform ${(platform.readyMs / 1000).toFixed(1)} s, baseline ${(baseline.readyMs / 1000).toFixed(1)} s`,
    );
    console.log(`platform log: ${join(tmpdir(), 'comanda-bench-platform-server.log')}`);
    console.log(
      '\ntargets (issue 10, against the baseline): gateway read ≥ 0.50 × base and p99 ≤ 20 ms at 70 %; straight read ≥ 0.70 × base; tokens ≥ 3000/s',
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
