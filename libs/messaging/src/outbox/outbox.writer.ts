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

  constructor(@Inject(MESSAGING_OPTIONS) options: MessagingOptions) {
    this.source = `/comanda/${options.service}`;
    this.table = qualifiedTable(options.schema, 'outbox');
    this.channel = outboxChannel(options.schema);
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

    // Writers of one aggregate take turns until commit, so positions follow commit order
    // within an aggregate and the relay can never see a later event before an earlier one.
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
      this.table,
      `${envelope.tenantid}/${envelope.subject}`,
    ]);
    await manager.query(
      `INSERT INTO ${this.table} (event_id, tenant_id, subject, event_type, event, headers)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        envelope.id,
        envelope.tenantid,
        envelope.subject,
        envelope.type,
        JSON.stringify(envelope),
        JSON.stringify(headers),
      ],
    );
    // Delivered at commit only; identical notifications of one transaction collapse into one.
    await manager.query('SELECT pg_notify($1, $2)', [this.channel, '']);
    return envelope;
  }
}
