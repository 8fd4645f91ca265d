/**
 * Closed-loop runs of bench/support/load.ts taken together: autocannon's histograms of each
 * run, merged as autocannon merges its workers' (its `aggregateResult`), so that a path
 * measured in windows taken in turn with its baseline gets exact percentiles over all of them.
 */
import autocannon from 'autocannon';
import type { LoadResult } from './load';

const { aggregateResult } = autocannon as unknown as {
  aggregateResult(results: unknown[], options: { url: string }): autocannon.Result;
};

/** One autocannon run as it ended (`skipAggregateResult`), and its answers of another status. */
export interface ClosedLoopRun {
  raw: unknown;
  unexpected: number;
}

/**
 * The figures of closed-loop runs taken together. The rate is over the time they really ran:
 * autocannon stops a run on its next one-second sampling tick, after the duration asked.
 */
export function summarise(runs: ClosedLoopRun[]): Omit<LoadResult, 'runs' | 'launchLagMs'> {
  if (runs.length === 0) throw new Error('no load run to summarise');
  const merged = aggregateResult(
    runs.map((run) => run.raw),
    { url: 'http://merged.invalid' },
  );
  const unexpected = runs.reduce((sum, run) => sum + run.unexpected, 0);
  const seconds = runs.reduce((sum, run) => sum + (run.raw as { duration: number }).duration, 0);
  return {
    perSecond: merged.requests.total / seconds,
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    requests: merged.requests.total,
    // A timeout counts among autocannon's errors too.
    failures: unexpected + merged.errors,
  };
}

/**
 * The length of each of `windows` windows sharing `seconds`: whole seconds, at least one,
 * since autocannon ends a run only on its one-second sampling tick.
 */
export function wholeSecondWindows(seconds: number, windows: number): number {
  return Math.max(1, Math.round(seconds / windows));
}
