import { Inject, Injectable } from '@nestjs/common';
import { currentContext } from '@comanda/context';
import {
  createCloudEvent,
  type CloudEvent,
  type EventType,
  type NewEvent,
} from '@comanda/contracts';
import type { EntityManager } from 'typeorm';
import type { MessageHeaders } from '../bus/message-bus';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { outboxChannel } from './outbox-channel';
import { OutboxOutsideTransactionError } from './outbox.errors';

/** Writes events into the service's outbox, in the caller's transaction. */
@Injectable()
export class OutboxWriter {
  private readonly source: string;
  private readonly table: string;
  private readonly channel: string;
  private readonly insertSql: string;

  constructor(@Inject(MESSAGING_OPTIONS) options: MessagingOptions) {
    this.source = `/comanda/${options.service}`;
    this.table = qualifiedTable(options.schema, 'outbox');
    this.channel = outboxChannel(options.schema);
    // A MATERIALIZED CTE the insert reads from runs first and exactly once.
    this.insertSql = `WITH turn AS MATERIALIZED (
        SELECT pg_advisory_xact_lock(hashtext($7), hashtext($8))
      )
      INSERT INTO ${this.table} (event_id, tenant_id, subject, event_type, event, headers)
      SELECT $1::uuid, $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb FROM turn
      RETURNING pg_notify($9, '')`;
  }

  /**
   * Adds the event to the outbox of `manager`'s transaction; the relay publishes it once
   * that transaction commits, and never if it rolls back.
   */
  async add<T extends EventType>(
    manager: EntityManager,
    event: NewEvent<T>,
  ): Promise<CloudEvent<T>> {
    if (!manager.queryRunner?.isTransactionActive) {
      throw new OutboxOutsideTransactionError(event.type);
    }
    const envelope = createCloudEvent(this.source, event);
    const context = currentContext();
    const headers: MessageHeaders = {};
    if (context?.requestId) headers.requestId = context.requestId;
    if (context?.traceparent) headers.traceparent = context.traceparent;
    if (context?.tracestate) headers.tracestate = context.tracestate;

    // One statement: writers of one aggregate take turns until commit (the advisory lock is
    // taken before the row gets its position), so positions follow commit order within an
    // aggregate and the relay can never see a later event before an earlier one; the
    // notification is delivered at commit only, and identical ones of a transaction collapse.
    await manager.query(this.insertSql, [
      envelope.id,
      envelope.tenantid,
      envelope.subject,
      envelope.type,
      JSON.stringify(envelope),
      JSON.stringify(headers),
      this.table,
      `${envelope.tenantid}/${envelope.subject}`,
      this.channel,
    ]);
    return envelope;
  }
}
