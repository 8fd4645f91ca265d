import { Inject, Injectable } from '@nestjs/common';
import { deferWrite } from '@comanda/persistence';
import type { EntityManager } from 'typeorm';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { TimerOutsideTransactionError } from './timer.errors';
import type { PendingTimer, TimerPayload, TimerSchedule } from './timer.types';

/** Durable timers of the service, written in the caller's transaction. */
@Injectable()
export class TimerService {
  private readonly table: string;

  constructor(@Inject(MESSAGING_OPTIONS) options: MessagingOptions) {
    this.table = qualifiedTable(options.schema, 'timers');
  }

  /**
   * Sets timer name + key to fire at `fireAt` with `payload`. Scheduling it again replaces
   * the deadline and payload; a timer that already fired or died is armed again, which lets
   * a handler schedule its own next round under the same key.
   */
  async schedule<P extends TimerPayload>(
    manager: EntityManager,
    timer: TimerSchedule<P>,
  ): Promise<void> {
    if (!manager.queryRunner?.isTransactionActive)
      throw new TimerOutsideTransactionError(timer.name);
    // One clock: a delay becomes a deadline in the database, which also compares it.
    const fireAt = `coalesce($3::timestamptz, now() + $5::float8 * interval '1 millisecond')`;
    // Sent with the transaction's next statement or its COMMIT (ADR 0067).
    await deferWrite(
      manager,
      `INSERT INTO ${this.table} (name, key, fire_at, next_attempt_at, payload)
       VALUES ($1, $2, ${fireAt}, ${fireAt}, $4)
       ON CONFLICT (name, key) DO UPDATE SET
         fire_at = EXCLUDED.fire_at, next_attempt_at = EXCLUDED.fire_at,
         payload = EXCLUDED.payload, attempts = 0, last_error = NULL,
         locked_until = NULL, locked_by = NULL, fired_at = NULL, dead_at = NULL,
         updated_at = now()`,
      [
        timer.name,
        timer.key,
        timer.fireAt ?? null,
        JSON.stringify(timer.payload),
        timer.delayMs === undefined ? null : checkedDelay(timer.delayMs),
      ],
    );
  }

  /**
   * Cancels the timer if it has not fired yet, without answering what it cancelled: sent with
   * the transaction's next statement or its COMMIT (ADR 0067), where it still comes first, so
   * that statement runs after a handler firing the timer right now has finished (cancel waits
   * on its row lock).
   */
  async discard(manager: EntityManager, name: string, key: string): Promise<void> {
    if (!manager.queryRunner?.isTransactionActive) throw new TimerOutsideTransactionError(name);
    await deferWrite(
      manager,
      `DELETE FROM ${this.table} WHERE name = $1 AND key = $2 AND fired_at IS NULL AND dead_at IS NULL`,
      [name, key],
    );
  }

  /** Cancels the timer if it has not fired yet; answers the timer cancelled, if there was one. */
  async cancel(
    manager: EntityManager,
    name: string,
    key: string,
  ): Promise<PendingTimer | undefined> {
    if (!manager.queryRunner?.isTransactionActive) throw new TimerOutsideTransactionError(name);
    // A handler running right now holds the row lock: cancel waits, then finds it fired.
    const [rows]: [PendingRow[], number] = await manager.query(
      `DELETE FROM ${this.table} WHERE name = $1 AND key = $2 AND fired_at IS NULL AND dead_at IS NULL
       RETURNING fire_at, next_attempt_at`,
      [name, key],
    );
    return pendingTimer(rows[0]);
  }

  /** The timer if it has not fired (nor died) yet; a plain read that waits on no lock. */
  async pending(
    manager: EntityManager,
    name: string,
    key: string,
  ): Promise<PendingTimer | undefined> {
    const rows: PendingRow[] = await manager.query(
      `SELECT fire_at, next_attempt_at FROM ${this.table}
       WHERE name = $1 AND key = $2 AND fired_at IS NULL AND dead_at IS NULL`,
      [name, key],
    );
    return pendingTimer(rows[0]);
  }
}

interface PendingRow {
  fire_at: Date;
  next_attempt_at: Date;
}

function pendingTimer(row: PendingRow | undefined): PendingTimer | undefined {
  return row && { fireAt: row.fire_at, nextAttemptAt: row.next_attempt_at };
}

function checkedDelay(delayMs: number): number {
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(`a timer delay must be a non-negative number of ms, got ${delayMs}`);
  }
  return delayMs;
}
