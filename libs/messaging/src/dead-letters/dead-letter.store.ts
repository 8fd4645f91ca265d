import { Inject, Injectable } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import type { DeliveredMessage, MessageHeaders } from '../bus/message-bus';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { RETRY_TIMER, retryTimerKey } from '../retries/deferred-retries';

/** A message a consumer gave up on, as the service keeps it. */
export interface DeadLetterRecord {
  id: string;
  consumer: string;
  eventId: string;
  eventType: string;
  tenantId: string | null;
  subject: string;
  error: string;
  attempts: number;
  failedAt: Date;
}

interface DeadLetterRow {
  id: string;
  consumer: string;
  event_id: string;
  event_type: string;
  tenant_id: string | null;
  event: CloudEvent;
  headers: MessageHeaders;
  error: string;
  attempts: number;
  failed_at: Date;
}

/** Largest page of dead letters one request returns. */
export const DEAD_LETTER_PAGE_MAX = 500;

/**
 * The service's delivery counts and dead letters, in its own schema (both bus modes). A
 * delivery is counted in its own committed statement before the handler runs, so a message
 * whose handling kills the process is still counted and is parked after N deliveries. On a
 * transport that flags redeliveries, a message's first delivery is counted only if it
 * fails, and its redelivery counts it (see `MessageBus.flagsRedeliveries`).
 */
@Injectable()
export class DeadLetterStore {
  private readonly deliveries: string;
  private readonly deadLetters: string;
  private readonly timers: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    this.deliveries = qualifiedTable(options.schema, 'deliveries');
    this.deadLetters = qualifiedTable(options.schema, 'dead_letters');
    this.timers = qualifiedTable(options.schema, 'timers');
  }

  /**
   * Counts one more delivery of the event to the consumer; returns the count and last error.
   * A `redelivered` message met for the first time counts its earlier delivery too (one that
   * was not counted: see `MessageBus.flagsRedeliveries`).
   */
  async countDelivery(
    consumer: string,
    eventId: string,
    redelivered = false,
  ): Promise<{ deliveries: number; lastError: string | null }> {
    const [row]: Array<{ deliveries: number; last_error: string | null }> =
      await this.dataSource.query(
        `INSERT INTO ${this.deliveries} (consumer, event_id, deliveries) VALUES ($1, $2, $3)
         ON CONFLICT (consumer, event_id)
         DO UPDATE SET deliveries = ${this.deliveries}.deliveries + 1, updated_at = now()
         RETURNING deliveries, last_error`,
        [consumer, eventId, redelivered ? 2 : 1],
      );
    return { deliveries: row.deliveries, lastError: row.last_error };
  }

  /** A delivery that was not counted when it started failed: counts it, with its error. */
  async countFailedDelivery(consumer: string, eventId: string, error: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.deliveries} (consumer, event_id, last_error) VALUES ($1, $2, $3)
       ON CONFLICT (consumer, event_id) DO UPDATE SET
         deliveries = ${this.deliveries}.deliveries + 1, last_error = $3, updated_at = now()`,
      [consumer, eventId, error],
    );
  }

  /**
   * Remembers why the last delivery failed (shown when the message is parked later); in
   * `within` when given.
   */
  async recordError(
    consumer: string,
    eventId: string,
    error: string,
    within?: EntityManager,
  ): Promise<void> {
    await (within ?? this.dataSource).query(
      `UPDATE ${this.deliveries} SET last_error = $3, updated_at = now()
       WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId, error],
    );
  }

  /** The event was handled (or given up on): its count is no longer needed. */
  async forget(consumer: string, eventId: string, within?: EntityManager): Promise<void> {
    await (within ?? this.dataSource).query(
      `DELETE FROM ${this.deliveries} WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId],
    );
  }

  /**
   * Parks the message as a dead letter of `consumer`, with its last error, and ends its
   * retries: a retry still pending for it is cancelled (an operator decides now). In
   * `within` when given, else in a transaction of its own.
   */
  async park(
    consumer: string,
    message: Pick<DeliveredMessage, 'event' | 'headers'>,
    error: string,
    attempts: number,
    within?: EntityManager,
  ): Promise<void> {
    const { event } = message;
    const write = async (tx: EntityManager) => {
      // First, before this takes any other lock: a retry of the message being fired right
      // now holds its timer row, and this waits for it. Then one still waiting is cancelled;
      // the one fired in this very transaction (when parked from it) is marked fired and stays.
      await tx.query(
        `DELETE FROM ${this.timers}
         WHERE name = $1 AND key = $2 AND fired_at IS NULL AND dead_at IS NULL`,
        [RETRY_TIMER, retryTimerKey(consumer, event.id)],
      );
      await tx.query(
        `INSERT INTO ${this.deadLetters}
           (consumer, event_id, event_type, tenant_id, event, headers, error, attempts)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (consumer, event_id) DO UPDATE SET
           error = EXCLUDED.error, attempts = EXCLUDED.attempts, failed_at = now()`,
        [
          consumer,
          event.id,
          event.type,
          event.tenantid ?? null,
          JSON.stringify(event),
          JSON.stringify(message.headers ?? {}),
          error.slice(0, 2_000),
          attempts,
        ],
      );
      await tx.query(`DELETE FROM ${this.deliveries} WHERE consumer = $1 AND event_id = $2`, [
        consumer,
        event.id,
      ]);
    };
    if (within) await write(within);
    else await this.dataSource.transaction(write);
  }

  /** Newest first. */
  async list(limit = 100): Promise<DeadLetterRecord[]> {
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.deadLetters} ORDER BY failed_at DESC, id DESC LIMIT $1`,
      [Math.max(1, Math.min(limit, DEAD_LETTER_PAGE_MAX))],
    );
    return rows.map(toRecord);
  }

  /** The dead letter with its event and headers, for a replay; undefined when there is none. */
  async take(
    id: string,
  ): Promise<{ record: DeadLetterRecord; event: CloudEvent; headers: MessageHeaders } | undefined> {
    if (!/^[0-9]{1,18}$/.test(id)) return undefined;
    const [row]: DeadLetterRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.deadLetters} WHERE id = $1`,
      [id],
    );
    return row ? { record: toRecord(row), event: row.event, headers: row.headers } : undefined;
  }

  /** Purges one dead letter; false when there was none. */
  async remove(id: string): Promise<boolean> {
    if (!/^[0-9]{1,18}$/.test(id)) return false;
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM ${this.deadLetters} WHERE id = $1`,
      [id],
    );
    return count > 0;
  }

  /** A failed replay: the letter stays, with the new error and one more attempt. */
  async replayFailed(id: string, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.deadLetters} SET error = $2, attempts = attempts + 1, failed_at = now()
       WHERE id = $1`,
      [id, error.slice(0, 2_000)],
    );
  }
}

function toRecord(row: DeadLetterRow): DeadLetterRecord {
  return {
    id: String(row.id),
    consumer: row.consumer,
    eventId: row.event_id,
    eventType: row.event_type,
    tenantId: row.tenant_id,
    subject: row.event.subject,
    error: row.error,
    attempts: row.attempts,
    failedAt: row.failed_at,
  };
}
