import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { runWithContext } from '@comanda/context';
import { databaseUnavailable, lastRefusedForDatabaseAt } from '@comanda/persistence';
import { lastBrokerTroubleAt } from '../broker-trouble';
import { DataSource, type EntityManager } from 'typeorm';
import { classifyFailure } from '../bus/failure-kind';
import { describeError } from '../bus/retry-schedule';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { deleteInBatches } from '../polling/delete-in-batches';
import { loggedLoopFailures, PollingLoop, type LoopState } from '../polling/polling-loop';
import { TimerHandlerRegistry } from './timer-handler.registry';
import type { FiredTimer, TimerLock, TimerPayload } from './timer.types';

/** Connections of the pool the poller never takes for firing timers. */
const POOL_RESERVE = 2;

function poolSizeOf(dataSource: DataSource): number {
  const extra = (dataSource.options as { extra?: { max?: unknown } }).extra;
  return typeof extra?.max === 'number' ? extra.max : 10;
}

interface ClaimedTimer {
  name: string;
  key: string;
  attempts: number;
}

/**
 * A round kept waiting this long means the database hardly answers (a stall that ends before
 * the statement deadline): a claim made that late, in that round or the next, is late for
 * reasons of ours, as after an outage.
 */
const SLOW_ROUND_MS = 2_000;

interface FiringTimer {
  fire_at: Date;
  payload: TimerPayload;
  attempts: number;
}

/**
 * Fires due timers. Claims them with SKIP LOCKED and a lease so replicas share them, then
 * runs each handler in a transaction that also marks the timer fired: the effect and the
 * mark commit together, once. A failing handler rolls back, is retried with back-off and,
 * after the last attempt, the timer is marked dead with its error.
 */
@Injectable()
export class TimerPoller {
  private readonly logger = new Logger(TimerPoller.name);
  private readonly instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly table: string;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly retentionMs: number;
  private readonly outageGraceMs: number;
  private readonly loop: PollingLoop;
  private nextCleanupAt = 0;
  /** When the poller started: deadlines armed before it wait a grace (the service was down). */
  private startedAt: number | undefined;
  /** When this poller last met its database failing or hardly answering. */
  private troubleAt: number | undefined;
  /** The trouble (its own, or a request refused for the database) the grace is for. */
  private heldFor: number | undefined;
  /** The grace in force: marked deadlines due before `until` wait until then. */
  private grace: { until: number; armedBefore?: Date } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: TimerHandlerRegistry,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    const timers = options.timers ?? {};
    this.table = qualifiedTable(options.schema, 'timers');
    this.pollMs = options.timerPollMs ?? 1_000;
    this.leaseMs = timers.leaseMs ?? 60_000;
    // Each timer fires in a transaction of its own: claiming more than the pool can serve
    // (keeping a reserve for the handlers' and the relay's other queries) would deadlock it.
    const poolMax = poolSizeOf(dataSource);
    this.batchSize = Math.max(1, Math.min(timers.batchSize ?? 20, poolMax - POOL_RESERVE));
    this.maxAttempts = timers.maxAttempts ?? 10;
    this.retryBaseMs = timers.retryBaseMs ?? 1_000;
    this.retryMaxMs = timers.retryMaxMs ?? 300_000;
    this.retentionMs = timers.retentionMs ?? 7 * 24 * 3_600_000;
    this.outageGraceMs = timers.outageGraceMs ?? 30_000;
    const report = loggedLoopFailures(this.logger, `timer poller of "${options.schema}"`);
    this.loop = new PollingLoop(
      this.pollMs,
      () => this.round(),
      report.onError,
      report.onRecovered,
    );
  }

  start(): void {
    if (this.startedAt === undefined) {
      this.startedAt = Date.now();
      // Armed before this start: due while the service was down, or soon after it is back.
      this.grace = {
        until: this.startedAt + this.outageGraceMs,
        armedBefore: new Date(this.startedAt),
      };
    }
    this.loop.start();
  }

  /** Stops polling; timers already being fired finish first. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  isHealthy(stuckAfterMs?: number): boolean {
    return this.loop.isHealthy(stuckAfterMs);
  }

  /** Its loop's state for readiness: ok, stopped, stuck in a round, or failing. */
  state(stuckAfterMs?: number): LoopState {
    return this.loop.state(stuckAfterMs);
  }

  /**
   * Claims and fires one batch of due timers; returns how many were claimed. `startedAt`: when
   * the round began (its claim is late when the database kept the round waiting).
   */
  async pollOnce(startedAt = Date.now()): Promise<number> {
    const names = this.registry.names();
    if (names.length === 0) return 0;
    await this.parkAbandoned(names);
    const claimed: ClaimedTimer[] = await this.dataSource
      .query(
        `UPDATE ${this.table} t
       SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2
       FROM (
         SELECT name, key FROM ${this.table}
         WHERE fired_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
           AND attempts < $5
           AND name = ANY($1::text[])
         ORDER BY next_attempt_at
         LIMIT $4
         FOR UPDATE SKIP LOCKED
       ) due
       WHERE t.name = due.name AND t.key = due.key
       RETURNING t.name, t.key, t.attempts`,
        [names, this.instance, this.leaseMs, this.batchSize, this.maxAttempts],
      )
      .then((result: [ClaimedTimer[], number]) => result[0]);
    if (Date.now() - startedAt > SLOW_ROUND_MS) {
      // Claimed late for reasons of ours: the marked ones are held, not fired (their lease is
      // taken back, so firing them below finds them gone).
      this.troubleAt = Date.now();
      await this.holdBackDeadlines();
    }
    // First tries run side by side. A timer tried before may be the one whose handler ends
    // the process: those run one at a time after them, so a crash costs only its own attempt
    // and never one of a healthy timer that happened to share its batch.
    const fresh = claimed.filter((timer) => timer.attempts === 0);
    const retried = claimed.filter((timer) => timer.attempts > 0);
    await Promise.all(fresh.map((timer) => this.fire(timer)));
    for (const timer of retried) await this.fire(timer);
    return claimed.length;
  }

  /**
   * Timers whose attempts are used up but that were never marked dead: every attempt was
   * claimed and then lost with its process (a handler that crashes it). Parked, with why.
   */
  private async parkAbandoned(names: string[]): Promise<void> {
    const [parked]: [Array<{ name: string; key: string; attempts: number }>, number] =
      await this.dataSource.query(
        `UPDATE ${this.table}
         SET dead_at = now(), locked_until = NULL, locked_by = NULL, updated_at = now(),
             last_error = coalesce(last_error, 'the process ended while handling it')
         WHERE fired_at IS NULL AND dead_at IS NULL AND attempts >= $2
           AND (locked_until IS NULL OR locked_until < now())
           AND name = ANY($1::text[])
         RETURNING name, key, attempts`,
        [names, this.maxAttempts],
      );
    for (const timer of parked) {
      this.logger.error(
        `timer ${timer.name}/${timer.key} is dead after ${timer.attempts} attempts that never completed`,
      );
    }
  }

  /** One round of the loop; a full batch means more timers may be due already. */
  private async round(): Promise<boolean> {
    const startedAt = Date.now();
    try {
      await this.holdBackDeadlines();
      const claimed = await this.pollOnce(startedAt);
      const moreToClean = await this.cleanupIfDue();
      // Kept waiting after its claim: the next round's claim is the late one.
      if (Date.now() - startedAt > SLOW_ROUND_MS) this.troubleAt = Date.now();
      return claimed >= this.batchSize || moreToClean;
    } catch (error) {
      // The database failed a round: whoever reported meanwhile was refused too.
      this.troubleAt = Date.now();
      throw error;
    }
  }

  /**
   * Before a claim (docs/adr/0060): after the poller started, after each time the database
   * failed (a failed or slow round here, a request of this process refused with 503), and
   * while and after the process's message broker could not be reached (ADR 0068),
   * the deadlines for reports from outside (`graceAfterOutage`) due before the grace ends are
   * moved to its end, so a POS or partner whose report was refused can send it again first.
   * Every round of an outage's grace does it again (it changes nothing twice): a claim the
   * database ran late, after the connection that sent it was given up, is caught too.
   */
  private async holdBackDeadlines(): Promise<void> {
    const refused = lastRefusedForDatabaseAt();
    // The broker away: events stored in time (a partner's, by another service) reach this
    // process only once it is back (ADR 0068). Now while it is away, so the grace runs on.
    const broker = lastBrokerTroubleAt();
    const started = this.startedAt ?? Infinity;
    const trouble = Math.max(
      this.troubleAt ?? 0,
      // A refusal before this poller started belongs to an earlier life of the service.
      refused !== undefined && refused >= started ? refused : 0,
      broker !== undefined && broker >= started ? broker : 0,
    );
    if (trouble > 0 && trouble !== this.heldFor) {
      this.heldFor = trouble;
      this.grace = { until: Date.now() + this.outageGraceMs };
    }
    const grace = this.grace;
    if (!grace) return;
    if (Date.now() >= grace.until) {
      this.grace = undefined;
      return;
    }
    await this.holdBack(new Date(grace.until), grace.armedBefore);
    // A start's hold is done once: no claim of this process can be late before it.
    if (grace.armedBefore && this.grace === grace) this.grace = undefined;
  }

  /**
   * Moves the marked timers due before `until` (armed before `armedBefore`, when given) to
   * `until`, in one statement. Rows this poller claimed and could not fire (the database went
   * away mid-firing) are taken back: their lease would hold them for a minute.
   */
  private async holdBack(until: Date, armedBefore: Date | undefined): Promise<void> {
    const names = this.registry.gracedNames();
    if (this.outageGraceMs <= 0 || names.length === 0) return;
    const [held]: [Array<{ name: string; next_attempt_at: Date }>, number] =
      await this.dataSource.query(
        `UPDATE ${this.table}
         SET next_attempt_at = $2, locked_until = NULL, locked_by = NULL, updated_at = now()
         WHERE fired_at IS NULL AND dead_at IS NULL AND name = ANY($1::text[])
           AND next_attempt_at < $2
           AND ($3::timestamptz IS NULL OR updated_at < $3)
           AND (locked_until IS NULL OR locked_until < now() OR locked_by = $4)
         RETURNING name, next_attempt_at`,
        [names, until, armedBefore ?? null, this.instance],
      );
    if (held.length > 0) this.logger.warn(heldBackLine(held, this.outageGraceMs));
  }

  private async fire({ name, key }: ClaimedTimer): Promise<void> {
    const handler = this.registry.get(name);
    if (!handler) return;
    // The attempt is counted in its own committed statement before the handler runs: a
    // handler that kills the process has used it all the same, and is parked after N. The
    // same statement renews the lease, so a timer that waited in its batch behind slower ones
    // starts with a whole lease; once the firing has marked the row, its row lock (not the
    // lease) keeps every other poller off it, however long the handler runs. (Before the
    // mark, a `lockFirst` waits at most half the lease; should another replica take the timer
    // all the same, the mark finds the row taken and this firing runs nothing.) The statement
    // also reads the payload that `lockFirst` locks by.
    const [counted]: [Array<{ payload: TimerPayload }>, number] = await this.dataSource.query(
      `UPDATE ${this.table}
       SET attempts = attempts + 1, locked_until = now() + $4 * interval '1 millisecond',
           updated_at = now()
       WHERE name = $1 AND key = $2 AND locked_by = $3 AND fired_at IS NULL AND dead_at IS NULL
       RETURNING payload`,
      [name, key, this.instance, this.leaseMs],
    );
    if (counted.length === 0) return; // cancelled, rescheduled or taken over since the claim
    const lockFirst = this.registry.lockFirst(name);
    try {
      await runWithContext({ requestId: randomUUID() }, () =>
        this.dataSource.transaction(async (manager) => {
          // What the handler changes is locked before the timer's row when it says so, in the
          // order its other writers take them (docs/adr/0061); a cancel meanwhile is seen below.
          if (lockFirst) await this.lockFirstWithinLease(lockFirst, counted[0].payload, manager);
          // Marking takes the row lock (a concurrent cancel or poller waits on it) and
          // lets the handler schedule the same name + key again for a next round.
          const [rows]: [FiringTimer[], number] = await manager.query(
            `UPDATE ${this.table}
             SET fired_at = now(), locked_until = NULL, locked_by = NULL,
                 last_error = NULL, updated_at = now()
             WHERE name = $1 AND key = $2 AND locked_by = $3 AND fired_at IS NULL AND dead_at IS NULL
             RETURNING fire_at, payload, attempts`,
            [name, key, this.instance],
          );
          const row = rows[0];
          if (!row) return; // cancelled, rescheduled or taken over since the claim
          const timer: FiredTimer = {
            name,
            key,
            fireAt: row.fire_at,
            payload: row.payload,
            attempt: row.attempts,
          };
          await handler(row.payload, manager, timer);
        }),
      );
    } catch (error) {
      // Cut off from the database while firing: deadlines get their grace (docs/adr/0060).
      if (databaseUnavailable(error)) this.troubleAt = Date.now();
      await this.recordFailure(name, key, error);
    }
  }

  /**
   * Runs the handler's `lockFirst` with its lock waits bounded by half the lease: a firing that
   * waited longer would let the lease run out, and another replica would count the attempt
   * again, or park the timer as abandoned with its attempts used up. A lock timeout is a
   * conflict the database asks to retry: the attempt is given back and the timer tried again
   * after its back-off (`recordFailure`).
   */
  private async lockFirstWithinLease(
    lockFirst: TimerLock,
    payload: TimerPayload,
    manager: EntityManager,
  ): Promise<void> {
    const waitMs = Math.max(1, Math.floor(this.leaseMs / 2));
    await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${waitMs}ms`]);
    await lockFirst(payload, manager);
    // The handler's own waits are as the service configured them.
    await manager.query('SET LOCAL lock_timeout TO DEFAULT');
  }

  private async recordFailure(name: string, key: string, error: unknown): Promise<void> {
    const reason = describeError(error);
    try {
      // Back-off doubles per failure: base * 2^(failures before this one), capped.
      const [rows]: [Array<{ attempts: number; dead: boolean }>, number] =
        await this.dataSource.query(
          `UPDATE ${this.table}
           SET last_error = $4, attempts = attempts - $8::int,
               next_attempt_at = now() + least($5::float8, $6::float8 * power(2, least(greatest(attempts - 1, 0), 30)))
                                         * interval '1 millisecond',
               dead_at = CASE WHEN attempts - $8::int >= $7 THEN now() END,
               locked_until = NULL, locked_by = NULL, updated_at = now()
           WHERE name = $1 AND key = $2 AND locked_by = $3 AND fired_at IS NULL AND dead_at IS NULL
           RETURNING attempts, dead_at IS NOT NULL AS dead`,
          [
            name,
            key,
            this.instance,
            reason,
            this.retryMaxMs,
            this.retryBaseMs,
            this.maxAttempts,
            // The database or the network failed, not the handler: the attempt is given back.
            classifyFailure(error) === 'infrastructure' ? 1 : 0,
          ],
        );
      const row = rows[0];
      if (!row) return;
      if (row.dead) {
        this.logger.error(
          `timer ${name}/${key} is dead after ${row.attempts} attempts, last error: ${reason}`,
        );
      } else {
        this.logger.warn(
          `timer ${name}/${key} failed (attempt ${row.attempts}), will retry: ${reason}`,
        );
      }
    } catch (recordError) {
      // The lease runs out and the timer is claimed again; nothing is lost.
      this.logger.error(
        `timer ${name}/${key} failed (${reason}) and the failure could not be recorded: ${describeError(recordError)}`,
      );
    }
  }

  /** Fired and dead timers past retention go, in batches until none is left; true when more is left. */
  private async cleanupIfDue(): Promise<boolean> {
    if (Date.now() < this.nextCleanupAt) return false;
    const more = await deleteInBatches(
      this.dataSource,
      `DELETE FROM ${this.table} WHERE (name, key) IN (
         SELECT name, key FROM ${this.table}
         WHERE fired_at < now() - $1 * interval '1 millisecond'
            OR dead_at < now() - $1 * interval '1 millisecond'
         LIMIT $2)`,
      this.retentionMs,
    );
    if (!more) this.nextCleanupAt = Date.now() + 60_000;
    return more;
  }
}

/** `held back 3 deadline(s) (placement-timeout ×2, payment-operation-timeout ×1) …` */
function heldBackLine(
  held: Array<{ name: string; next_attempt_at: Date }>,
  graceMs: number,
): string {
  const counts = new Map<string, number>();
  for (const timer of held) counts.set(timer.name, (counts.get(timer.name) ?? 0) + 1);
  const names = [...counts].map(([name, count]) => `${name} ×${count}`).join(', ');
  return (
    `held back ${held.length} deadline(s) (${names}) due now or within the grace, after this ` +
    `service was down or its database failed or stalled: they fire at ` +
    `${held[0].next_attempt_at.toISOString()} at the earliest (${graceMs} ms of grace, ` +
    `TIMER_OUTAGE_GRACE_MS), so a report refused meanwhile can be sent again`
  );
}
