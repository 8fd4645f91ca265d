/**
 * The load generator, in its own process so that it does not share an event loop with what
 * it measures, with the options given as JSON in argv[2]; prints the figures as one JSON line
 * on stdout. As fast as it goes: autocannon, each connection sending its next request when
 * the last is answered. At a fixed rate: an open loop of its own (see {@link fixedRate}).
 */
import autocannon from 'autocannon';
import { summarise, type ClosedLoopRun } from './load-runs';
import { RawConnection, requestBytes } from './raw-http';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /**
   * Requests per second over all connections: a fixed-rate run, requests launched at even
   * intervals whatever the answers do (open loop). Absent: as fast as it goes.
   */
  overallRate?: number;
  /** Every answer must have this status; any other counts as an error. */
  expectStatus: number;
  /** A fixed-rate run: also report each 100 ms slice ({@link LoadResult.slices}). */
  timeline?: boolean;
}

/** One 100 ms slice of a fixed-rate run, by the planned instants of its requests. */
export interface Slice {
  /** Requests planned in it and answered as expected. */
  answered: number;
  /** Of those, how many took longer than 20 ms. */
  slow: number;
  /** The slowest of them, in ms. */
  maxMs: number;
}

export interface LoadResult {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers with another status than expected, plus socket errors and timeouts. */
  failures: number;
  /**
   * A fixed-rate run: the longest a request was launched after its planned instant (this
   * process was not given the CPU in time). It is inside the latencies.
   */
  launchLagMs?: number;
  /** A fixed-rate run: every request it launched, those of its warm-up included. */
  launched?: number;
  /**
   * A fixed-rate run: how many of its 100 ms slices (by planned instant) had a request slower
   * than 20 ms, and how many slices it had. Few slices: the p99 comes from bursts.
   */
  slowSlices?: { slow: number; of: number };
  /**
   * A fixed-rate run with `timeline`: its slices in order, the first planned at
   * `measuredFromEpochMs` (wall clock, to line them up with what another process sampled).
   */
  slices?: Slice[];
  measuredFromEpochMs?: number;
  /** The closed-loop runs behind this result, their histograms unmerged (`summarise` in load-runs.ts). */
  runs?: ClosedLoopRun[];
}

/**
 * The first seconds of a fixed-rate run are not counted, as long as the closed-loop runs'
 * warm-up: the generator's process starts cold and opens its connections then. With one
 * second, the backlog the platform built in it (answering 50 requests in the first 100 ms,
 * 380 a tenth of a second later) was still draining in the first 0.3–0.6 s counted
 * (bench/README.md, 28 November 07:58).
 */
const FIXED_RATE_WARM_UP_SECONDS = 3;
/** A fixed-rate run also counts the 100 ms slices (by planned instant) with a request slower than this. */
const SLOW_MS = 20;

/**
 * A fixed-rate run. autocannon's `overallRate` is not one: each connection sends as fast as
 * it is answered until it has made its share of the second, then waits for the next second,
 * so a run at 70 % is a run at the maximum for 0.7 s of every second, and its latencies are
 * those of the maximum (and its coordinated-omission correction assumes 1 ms between
 * requests). Here request i is launched at start + i / rate on one of `connections` kept-alive
 * connections (queued for the first one free when all are busy; raw-http.ts), and its
 * latency counts from that planned instant, not from when it was written: a late generator
 * or a full set of connections counts against the server, as a real client's wait would.
 */
async function fixedRate(options: LoadOptions & { overallRate: number }): Promise<LoadResult> {
  const url = new URL(options.url);
  const count = Math.round(
    options.overallRate * (FIXED_RATE_WARM_UP_SECONDS + options.durationSeconds),
  );
  const intervalMs = 1000 / options.overallRate;
  const latencies: number[] = [];
  let failures = 0;
  let maxLag = 0;
  const slices: Slice[] = Array.from({ length: options.durationSeconds * 10 }, () => ({
    answered: 0,
    slow: 0,
    maxMs: 0,
  }));
  const record = (plannedAt: number, status: number | undefined): void => {
    if (plannedAt < measuredFrom) return;
    if (status !== options.expectStatus) {
      failures++;
      return;
    }
    const latency = performance.now() - plannedAt;
    latencies.push(latency);
    const slice = slices[Math.floor((plannedAt - measuredFrom) / 100)];
    if (slice) {
      slice.answered++;
      if (latency > SLOW_MS) slice.slow++;
      slice.maxMs = Math.max(slice.maxMs, latency);
    }
  };
  // Planned instants waiting for a free connection, oldest first.
  const waiting: number[] = [];
  let firstWaiting = 0;
  const idle: number[] = [];
  const plannedOf: number[] = [];
  let answered = 0;
  // Set once every request has been launched and some are still unanswered.
  let allAnswered: (() => void) | undefined;
  const bytes = requestBytes(url, options.method ?? 'GET', options.headers, options.body);
  const connections = Array.from({ length: options.connections }, (_, index) => {
    idle.push(index);
    return new RawConnection(Number(url.port || 80), url.hostname, bytes, (status) => {
      record(plannedOf[index], status);
      if (++answered === count) allAnswered?.();
      if (firstWaiting < waiting.length) sendOn(index, waiting[firstWaiting++]);
      else idle.push(index);
    });
  });
  const sendOn = (index: number, plannedAt: number): void => {
    plannedOf[index] = plannedAt;
    connections[index].send();
  };
  const launch = (plannedAt: number): void => {
    if (plannedAt >= measuredFrom) maxLag = Math.max(maxLag, performance.now() - plannedAt);
    const free = idle.pop();
    if (free === undefined) waiting.push(plannedAt);
    else sendOn(free, plannedAt);
  };
  const start = performance.now();
  const measuredFrom = start + FIXED_RATE_WARM_UP_SECONDS * 1000;
  let launched = 0;
  while (launched < count) {
    // Every request due by now is launched; the timer's own lateness is in their latency.
    const due = Math.min(count, Math.floor((performance.now() - start) / intervalMs) + 1);
    for (; launched < due; launched++) launch(start + launched * intervalMs);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  if (answered < count) await new Promise<void>((resolve) => (allAnswered = resolve));
  for (const connection of connections) connection.close();
  latencies.sort((a, b) => a - b);
  const at = (share: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? NaN;
  return {
    perSecond: latencies.length / options.durationSeconds,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
    failures,
    launchLagMs: maxLag,
    launched: count,
    slowSlices: { slow: slices.filter(({ slow }) => slow > 0).length, of: slices.length },
    ...(options.timeline
      ? { slices, measuredFromEpochMs: performance.timeOrigin + measuredFrom }
      : {}),
  };
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]) as LoadOptions;
  if (options.overallRate !== undefined) {
    const result = await fixedRate({ ...options, overallRate: options.overallRate });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  let unexpected = 0;
  const raw = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: options.durationSeconds,
        // The run's histograms as they are, so that runs taken in turn can be merged.
        skipAggregateResult: true,
      } as autocannon.Options,
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode) => {
      if (statusCode !== options.expectStatus) unexpected++;
    });
  });
  const output: LoadResult = {
    ...summarise([{ raw, unexpected }]),
    runs: [{ raw, unexpected }],
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
