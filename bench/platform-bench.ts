/**
 * `npm run bench`: the platform's authenticated read path and token endpoint against the
 * limit of this machine, measured in the same run (issue 10). Prints req/s, p50 and p99 of
 * each path and its ratio to the baseline, p99 at 70 % of the gateway's maximum rate, the
 * platform's RSS after the run and its time from start to ready. Nothing is asserted: the
 * targets are read off the output (see bench/README.md).
 *
 * Needs PostgreSQL as the tests do (DATABASE_URL's server, or one on 127.0.0.1:5432).
 * BENCH_SECONDS (default 10) sets the length of each measured run, BENCH_CONNECTIONS (50)
 * the concurrent connections of the load generator.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '@comanda/testing';
import type { LoadResult } from './support/load';
import {
  machineCpuTicks,
  processCpuMs,
  stolenPercent,
  rssMb,
  runLoad,
  startChild,
  stopChild,
  withProfile,
  type Started,
} from './support/children';
import { CONFIG_PATH, platformEnv, provisionBench, type PathLoad } from './support/bench-platform';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const WARM_UP_SECONDS = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? '50');
/** BENCH_ONLY=direct (or gateway, token): that path alone after the baseline, e.g. to profile it. */
const ONLY = process.env.BENCH_ONLY;
const runs = (name: string) => ONLY === undefined || ONLY === name;
/** BENCH_PROFILE=<dir>: a CPU profile of the platform over each measured run, `<dir>/<path>.cpuprofile`. */
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
  /** The baseline run just before this one. */
  base: Measured;
  /** For the config reads: the same-work baseline, run just before this one too. */
  sameWork?: Measured;
}

interface Measured extends LoadResult {
  /** CPU time (user + system) of the measured process per request answered, in µs. */
  cpuUsPerRequest: number;
  /** The share of the machine's CPU time other guests took during the run (steal), in %. */
  stolenPercent: number;
}

/** A warm-up, then one measured run; the CPU time `process` used during it is counted. */
async function measure(
  options: PathLoad,
  process: Started,
  profileName?: string,
): Promise<Measured> {
  await runLoad({ ...options, connections: CONNECTIONS, durationSeconds: WARM_UP_SECONDS });
  const run = async (): Promise<Measured> => {
    const before = processCpuMs(process.child.pid).total;
    const machineBefore = machineCpuTicks();
    const result = await runLoad({
      ...options,
      connections: CONNECTIONS,
      durationSeconds: SECONDS,
    });
    const used = processCpuMs(process.child.pid).total - before;
    return {
      ...result,
      cpuUsPerRequest: (1000 * used) / Math.max(1, result.requests),
      stolenPercent: stolenPercent(machineBefore, machineCpuTicks()),
    };
  };
  if (!profileName || !PROFILE_DIR) return run();
  return withProfile(process.child, join(PROFILE_DIR, `${profileName}.cpuprofile`), run);
}

async function main(): Promise<void> {
  const database = await createTestDatabase('bench');
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  let baseline: Started | undefined;
  let platform: Started | undefined;
  try {
    baseline = await startChild('baseline-server.ts', { DATABASE_URL: database.url });
    const baselineServer = baseline;
    platform = await startChild('platform-server.ts', platformEnv(database.url, admin));
    const started = platform;
    const paths = await provisionBench(platform, admin);
    const path = CONFIG_PATH;

    // On a shared machine the load of other work changes from one minute to the next: each
    // path is measured right after a run of the baseline, and its ratio is to that run.
    const baselineOptions = { url: `${baseline.url}${path}`, expectStatus: 200 };
    const first = await measure(baselineOptions, baselineServer);
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
      if (!selected) {
        rows.push({ name, result: SKIPPED, base: SKIPPED });
        return SKIPPED;
      }
      const base = await measure(baselineOptions, baselineServer);
      const sameWork = withSameWork ? await measure(sameWorkOptions, baselineServer) : undefined;
      const result = await measure(options, started, profileName);
      rows.push({ name, result, base, sameWork });
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
    const atFixedRate = async (options: PathLoad): Promise<Measured> => {
      if (!runs('gateway')) return SKIPPED;
      const machineBefore = machineCpuTicks();
      const result = await runLoad({
        ...options,
        connections: CONNECTIONS,
        durationSeconds: SECONDS,
        overallRate: rate,
      });
      return {
        ...result,
        cpuUsPerRequest: NaN,
        stolenPercent: stolenPercent(machineBefore, machineCpuTicks()),
      };
    };
    const fixed = await atFixedRate(paths.gateway);
    // The baseline at the same rate: what the machine's own latency is at that load.
    const fixedBase = await atFixedRate(baselineOptions);
    const rss = rssMb(platform.child.pid);

    console.log(
      `\n${CONNECTIONS} connections, ${SECONDS} s per run after ${WARM_UP_SECONDS} s of warm-up; load from a separate process\n`,
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
    console.log(
      `\ngateway read at a fixed ${rate} req/s (70 % of its maximum, open loop): p50 ${fixed.p50.toFixed(1)} ms, p99 ${fixed.p99.toFixed(1)} ms, ${fixed.failures} errors (requests launched up to ${fixed.launchLagMs?.toFixed(0)} ms late; ${fixed.stolenPercent.toFixed(0)} % stolen)`,
    );
    console.log(
      `baseline at the same rate:                      p50 ${fixedBase.p50.toFixed(1)} ms, p99 ${fixedBase.p99.toFixed(1)} ms, ${fixedBase.failures} errors (up to ${fixedBase.launchLagMs?.toFixed(0)} ms late; ${fixedBase.stolenPercent.toFixed(0)} % stolen)`,
    );
    console.log(`platform RSS after the run: ${rss.toFixed(0)} MB`);
    console.log(
      `time from start to ready: platform ${(platform.readyMs / 1000).toFixed(1)} s, baseline ${(baseline.readyMs / 1000).toFixed(1)} s`,
    );
    console.log(`platform log: ${join(tmpdir(), 'comanda-bench-platform-server.log')}`);
    console.log(
      '\ntargets (issue 10, against the baseline): gateway read ≥ 0.50 × base and p99 ≤ 20 ms at 70 %; straight read ≥ 0.70 × base; tokens ≥ 3000/s',
    );
  } finally {
    await stopChild(platform?.child);
    await stopChild(baseline?.child);
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
