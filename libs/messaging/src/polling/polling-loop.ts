import { databaseUnavailable } from '@comanda/persistence';
import { describeError } from '../bus/retry-schedule';
import { WakeableSleep } from './wakeable-sleep';

/**
 * A loop whose rounds keep failing (its database is down) reports the first failed round,
 * then at most one per this interval, with the count so far: not a line every poll.
 */
export const REPEATED_FAILURE_REPORT_MS = 30_000;

/** How a loop's failures read in a log line: the error, and the streak when it is one. */
export function loopFailure(what: string, error: string, failedRounds: number): string {
  return failedRounds > 1
    ? `${what} failed: ${error} (${failedRounds} rounds in a row; reported every ${REPEATED_FAILURE_REPORT_MS / 1000} s while it lasts)`
    : `${what} failed: ${error}`;
}

/**
 * The level of a loop's failure: a warning while the database cannot serve (unreachable,
 * restarting, out of connections), an outage that passes and that requests meeting it log as
 * warnings too (ADR 0054); an error for anything else, a fault someone has to fix.
 */
export function loopFailureLevel(error: unknown): 'warn' | 'error' {
  return databaseUnavailable(error) ? 'warn' : 'error';
}

/** Where a loop's failures and recovery go (a Nest `Logger`). */
export interface LoopLogger {
  error(message: string): void;
  warn(message: string): void;
  log(message: string): void;
}

/** The `onError` and `onRecovered` of a loop named `what` (`timer poller of "orders"`). */
export function loggedLoopFailures(logger: LoopLogger, what: string) {
  return {
    onError: (error: unknown, failedRounds: number) =>
      logger[loopFailureLevel(error)](loopFailure(what, describeError(error), failedRounds)),
    onRecovered: (failedRounds: number) =>
      logger.log(`${what} works again after ${failedRounds} failed round(s)`),
  };
}

/** A loop as readiness sees it: fine, stopped, in one round for too long, or its last round failed. */
export type LoopState = 'ok' | 'stopped' | 'stuck' | 'failing';

/**
 * The work loop the outbox relay and the timer poller share: run a round, sleep the poll
 * interval unless the round says more work is waiting (or a wake-up cuts the sleep short),
 * and keep going after a failed round, remembering it for the readiness check.
 */
export class PollingLoop {
  private readonly sleeper = new WakeableSleep();
  private running = false;
  private lastRoundOk = true;
  /** Rounds failed in a row, and when the streak was last reported. */
  private failedRounds = 0;
  private reportedAt = 0;
  /** When the round in progress started; undefined between rounds. */
  private roundStartedAt: number | undefined;
  /** Waits of the round on the broker (`waitingOnBroker`) in progress. */
  private brokerWaits = 0;
  private done: Promise<void> = Promise.resolve();

  /**
   * @param round one unit of work; resolves true when more is waiting right away
   * @param onError called with a round's error and the rounds failed in a row so far: for the
   *   first of a streak, then at most once per REPEATED_FAILURE_REPORT_MS; the loop goes on
   *   after the poll interval
   * @param onRecovered called when a round works after a streak of failed ones
   */
  constructor(
    private readonly pollMs: number,
    private readonly round: () => Promise<boolean>,
    private readonly onError: (error: unknown, failedRounds: number) => void,
    private readonly onRecovered?: (failedRounds: number) => void,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  /** Stops after the round in progress, which is finished first. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.sleeper.wake();
    await this.done;
  }

  /** Cuts the current sleep short; a wake-up during a round starts the next one at once. */
  wake(): void {
    this.sleeper.wake();
  }

  /**
   * Running, its last round worked, and the round in progress (if any) has not been going
   * for more than `stuckAfterMs` (default: three poll intervals, at least 5 s): a loop stuck
   * on a hung connection or handler turns readiness red.
   */
  isHealthy(stuckAfterMs?: number): boolean {
    return this.state(stuckAfterMs) === 'ok';
  }

  /** Why the loop is unhealthy, if it is (see `isHealthy`): stopped, stuck in a round, or failing. */
  state(stuckAfterMs = Math.max(this.pollMs * 3, 5_000)): LoopState {
    if (!this.running) return 'stopped';
    const started = this.roundStartedAt;
    if (started !== undefined && this.brokerWaits === 0 && Date.now() - started > stuckAfterMs)
      return 'stuck';
    return this.lastRoundOk ? 'ok' : 'failing';
  }

  /**
   * Runs `wait`, a wait of the round on the broker (a publish waiting for its confirm, or for
   * the connection to come back, up to the bus's own publish timeout). Readiness does not
   * follow the broker (ADR 0069): while such a wait lasts, the round is not stuck, and its
   * clock starts again when the last one ends. Before, an outage made every relay round wait
   * out the publish timeout (10 s), and readiness went red half the time.
   */
  async waitingOnBroker<T>(wait: () => Promise<T>): Promise<T> {
    this.brokerWaits += 1;
    try {
      return await wait();
    } finally {
      this.brokerWaits -= 1;
      if (this.brokerWaits === 0 && this.roundStartedAt !== undefined)
        this.roundStartedAt = Date.now();
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let moreWaiting = false;
      this.roundStartedAt = Date.now();
      try {
        moreWaiting = await this.round();
        this.lastRoundOk = true;
        if (this.failedRounds > 0) this.onRecovered?.(this.failedRounds);
        this.failedRounds = 0;
      } catch (error) {
        this.lastRoundOk = false;
        this.failedRounds += 1;
        const now = Date.now();
        if (this.failedRounds === 1 || now - this.reportedAt >= REPEATED_FAILURE_REPORT_MS) {
          this.reportedAt = now;
          this.onError(error, this.failedRounds);
        }
      } finally {
        this.roundStartedAt = undefined;
      }
      if (!moreWaiting && this.running) await this.sleeper.sleep(this.pollMs);
    }
  }
}
