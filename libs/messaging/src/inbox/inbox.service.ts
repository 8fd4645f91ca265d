import { Inject, Injectable } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';

/**
 * Makes a consumer's effect happen once per event, however often the event is delivered:
 * the (consumer, event id) mark and the effect commit in one transaction.
 */
@Injectable()
export class Inbox {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    this.table = qualifiedTable(options.schema, 'inbox');
  }

  /**
   * Runs `effect` in a transaction with the inbox mark and returns true, or returns false
   * without running it when `consumer` already handled `event`. A concurrent duplicate waits
   * on the mark's primary key until the first commits (then it is skipped) or rolls back
   * (then it runs). An effect that throws rolls back the mark too, so a retry runs it again.
   */
  async handleOnce(
    consumer: string,
    event: Pick<CloudEvent, 'id'>,
    effect: (manager: EntityManager) => Promise<void>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
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

  /** True when `consumer` has handled the event (committed). */
  async hasHandled(consumer: string, eventId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ${this.table} WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId],
    );
    return rows.length > 0;
  }
}
