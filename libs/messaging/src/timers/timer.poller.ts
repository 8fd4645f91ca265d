import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { runWithContext } from '@comanda/context';
import { DataSource } from 'typeorm';
import { describeError } from '../bus/retry-schedule';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { PollingLoop } from '../polling/polling-loop';
import { TimerHandlerRegistry } from './timer-handler.registry';
import type { FiredTimer, TimerPayload } from './timer.types';

interface ClaimedTimer {
  name: string;
  key: string;
}

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
  private readonly loop: PollingLoop;
  private nextCleanupAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: TimerHandlerRegistry,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    const timers = options.timers ?? {};
    this.table = qualifiedTable(options.schema, 'timers');
    this.pollMs = options.timerPollMs ?? 1_000;
    this.leaseMs = timers.leaseMs ?? 60_000;
    this.batchSize = timers.batchSize ?? 20;
    this.maxAttempts = timers.maxAttempts ?? 10;
    this.retryBaseMs = timers.retryBaseMs ?? 1_000;
    this.retryMaxMs = timers.retryMaxMs ?? 300_000;
    this.retentionMs = timers.retentionMs ?? 7 * 24 * 3_600_000;
    this.loop = new PollingLoop(
      this.pollMs,
      () => this.round(),
      (error) =>
        this.logger.error(`timer poller of "${options.schema}" failed: ${describeError(error)}`),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling; timers already being fired finish first. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  isHealthy(): boolean {
    return this.loop.isHealthy();
  }

  /** Claims and fires one batch of due timers; returns how many were claimed. */
  async pollOnce(): Promise<number> {
    const names = this.registry.names();
    if (names.length === 0) return 0;
    const claimed: ClaimedTimer[] = await this.dataSource
      .query(
        `UPDATE ${this.table} t
       SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2
       FROM (
         SELECT name, key FROM ${this.table}
         WHERE fired_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
           AND name = ANY($1::text[])
         ORDER BY next_attempt_at
         LIMIT $4
         FOR UPDATE SKIP LOCKED
       ) due
       WHERE t.name = due.name AND t.key = due.key
       RETURNING t.name, t.key`,
        [names, this.instance, this.leaseMs, this.batchSize],
      )
      .then((result: [ClaimedTimer[], number]) => result[0]);
    await Promise.all(claimed.map((timer) => this.fire(timer)));
    return claimed.length;
  }

  /** One round of the loop; a full batch means more timers may be due already. */
  private async round(): Promise<boolean> {
    const claimed = await this.pollOnce();
    await this.cleanupIfDue();
    return claimed >= this.batchSize;
  }

  private async fire({ name, key }: ClaimedTimer): Promise<void> {
    const handler = this.registry.get(name);
    if (!handler) return;
    try {
      await runWithContext({ requestId: randomUUID() }, () =>
        this.dataSource.transaction(async (manager) => {
          // Marking first takes the row lock (a concurrent cancel or poller waits on it) and
          // lets the handler schedule the same name + key again for a next round.
          const [rows]: [FiringTimer[], number] = await manager.query(
            `UPDATE ${this.table}
             SET fired_at = now(), attempts = attempts + 1, locked_until = NULL, locked_by = NULL,
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
      await this.recordFailure(name, key, error);
    }
  }

  private async recordFailure(name: string, key: string, error: unknown): Promise<void> {
    const reason = describeError(error);
    try {
      // Back-off doubles per failure: base * 2^(failures before this one), capped.
      const [rows]: [Array<{ attempts: number; dead: boolean }>, number] =
        await this.dataSource.query(
          `UPDATE ${this.table}
           SET attempts = attempts + 1, last_error = $4,
               next_attempt_at = now() + least($5::float8, $6::float8 * power(2, least(attempts, 30)))
                                         * interval '1 millisecond',
               dead_at = CASE WHEN attempts + 1 >= $7 THEN now() END,
               locked_until = NULL, locked_by = NULL, updated_at = now()
           WHERE name = $1 AND key = $2 AND locked_by = $3 AND fired_at IS NULL AND dead_at IS NULL
           RETURNING attempts, dead_at IS NOT NULL AS dead`,
          [name, key, this.instance, reason, this.retryMaxMs, this.retryBaseMs, this.maxAttempts],
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

  private async cleanupIfDue(): Promise<void> {
    if (Date.now() < this.nextCleanupAt) return;
    this.nextCleanupAt = Date.now() + 600_000;
    await this.dataSource.query(
      `DELETE FROM ${this.table} WHERE (name, key) IN (
         SELECT name, key FROM ${this.table}
         WHERE fired_at < now() - $1 * interval '1 millisecond'
         LIMIT 10000)`,
      [this.retentionMs],
    );
  }
}
