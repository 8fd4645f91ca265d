import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { deleteInBatches } from '../polling/delete-in-batches';
import { loggedLoopFailures, PollingLoop } from '../polling/polling-loop';

/**
 * Makes a consumer's effect happen once per event, however often the event is delivered:
 * the (consumer, event id) mark and the effect commit in one transaction.
 */
@Injectable()
export class Inbox {
  private readonly logger = new Logger(Inbox.name);
  private readonly table: string;
  private readonly deliveries: string;
  private readonly retentionMs: number;
  private readonly cleanupLoop: PollingLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    this.table = qualifiedTable(options.schema, 'inbox');
    this.deliveries = qualifiedTable(options.schema, 'deliveries');
    // Far past any redelivery the broker or the outbox can make, so a redelivered event
    // still finds its mark.
    this.retentionMs = options.relay?.inboxRetentionMs ?? 30 * 24 * 3_600_000;
    const report = loggedLoopFailures(this.logger, `inbox cleanup of "${options.schema}"`);
    this.cleanupLoop = new PollingLoop(
      options.relay?.cleanupEveryMs ?? 60_000,
      () => this.cleanup(),
      report.onError,
      report.onRecovered,
    );
  }

  /** Starts deleting old marks (and delivery counts) in the background. */
  startCleanup(): void {
    this.cleanupLoop.start();
  }

  stopCleanup(): Promise<void> {
    return this.cleanupLoop.stop();
  }

  /** Deletes marks and delivery counts past retention, in batches; true when more is left. */
  async cleanup(): Promise<boolean> {
    const marks = await deleteInBatches(
      this.dataSource,
      `DELETE FROM ${this.table} WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM ${this.table}
         WHERE processed_at < now() - $1 * interval '1 millisecond'
         ORDER BY processed_at LIMIT $2)`,
      this.retentionMs,
    );
    const counts = await deleteInBatches(
      this.dataSource,
      `DELETE FROM ${this.deliveries} WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM ${this.deliveries}
         WHERE updated_at < now() - $1 * interval '1 millisecond'
         ORDER BY updated_at LIMIT $2)`,
      this.retentionMs,
    );
    return marks || counts;
  }

  /**
   * Runs `effect` in a transaction with the inbox mark and returns true, or returns false
   * without running it when `consumer` already handled `event`. A concurrent duplicate waits
   * on the mark's primary key until the first commits (then it is skipped) or rolls back
   * (then it runs). An effect that throws rolls back the mark too, so a retry runs it again.
   * With `within`, mark and effect run in a savepoint of that transaction (a due retry's, so
   * they commit with its timer's mark) and a throw rolls back only to the savepoint.
   */
  async handleOnce(
    consumer: string,
    event: Pick<CloudEvent, 'id'>,
    effect: (manager: EntityManager) => Promise<void>,
    within?: EntityManager,
  ): Promise<boolean> {
    return (within ?? this.dataSource).transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO ${this.table} (consumer, event_id) VALUES ($1, $2)
         ON CONFLICT DO NOTHING RETURNING event_id`,
        [consumer, event.id],
      );
      if (inserted.length === 0) return false;
      await effect(manager);
      return true;
    });
  }

  /** Resolves when the database answers (consumers paused by an outage probe with it). */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** True when `consumer` has handled the event (committed). */
  async hasHandled(consumer: string, eventId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ${this.table} WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId],
    );
    return rows.length > 0;
  }
}
