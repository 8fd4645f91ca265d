import { Inject, Injectable } from '@nestjs/common';
import { currentContext } from '@comanda/context';
import { deferWrite } from '@comanda/persistence';
import {
  createCloudEvent,
  type CloudEvent,
  type EventType,
  type NewEvent,
} from '@comanda/contracts';
import type { EntityManager } from 'typeorm';
import type { MessageHeaders } from '../bus/message-bus';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from '../messaging.options';
import { notificationOrigin, outboxChannel, outboxWrittenMark } from './outbox-channel';
import { OutboxOutsideTransactionError } from './outbox.errors';

/** Writes events into the service's outbox, in the caller's transaction. */
@Injectable()
export class OutboxWriter {
  private readonly source: string;
  private readonly table: string;
  private readonly channel: string;
  private readonly writtenMark: string;
  private readonly insertSql: string;

  constructor(@Inject(MESSAGING_OPTIONS) options: MessagingOptions) {
    this.source = `/comanda/${options.service}`;
    this.table = qualifiedTable(options.schema, 'outbox');
    this.channel = outboxChannel(options.schema);
    this.writtenMark = outboxWrittenMark(this.channel);
    // A MATERIALIZED CTE runs exactly once; the InitPlan that counts it runs before the
    // first row is read, so every aggregate's turn is taken before any row gets a position.
    this.insertSql = `WITH turn AS MATERIALIZED (
        SELECT pg_advisory_xact_lock(hashtext($3), hashtext(key)) FROM unnest($4::text[]) AS key
      )
      INSERT INTO ${this.table} (event_id, tenant_id, subject, event_type, event, headers)
      SELECT (e.event->>'id')::uuid, e.event->>'tenantid', e.event->>'subject', e.event->>'type',
             e.event, $2::jsonb
      FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(event, n)
      WHERE (SELECT count(*) FROM turn) > 0
      ORDER BY e.n
      RETURNING pg_notify($5, $6)`;
  }

  /**
   * Adds the event to the outbox of `manager`'s transaction; the relay publishes it once
   * that transaction commits, and never if it rolls back.
   */
  async add<T extends EventType>(
    manager: EntityManager,
    event: NewEvent<T>,
  ): Promise<CloudEvent<T>> {
    const [envelope] = await this.addAll(manager, [event]);
    return envelope as CloudEvent<T>;
  }

  /**
   * Adds the events, in this order, in one statement (one round trip for all of them): as
   * `add` called for each in turn.
   */
  async addAll(
    manager: EntityManager,
    events: readonly NewEvent<EventType>[],
  ): Promise<CloudEvent[]> {
    if (events.length === 0) return [];
    if (!manager.queryRunner?.isTransactionActive) {
      throw new OutboxOutsideTransactionError(events[0].type);
    }
    const envelopes = events.map((event) => createCloudEvent(this.source, event));
    const context = currentContext();
    const headers: MessageHeaders = {};
    if (context?.requestId) headers.requestId = context.requestId;
    if (context?.traceparent) headers.traceparent = context.traceparent;
    if (context?.tracestate) headers.tracestate = context.tracestate;
    // Sorted, so that two writers of the same aggregates take their turns in one order.
    const aggregates = [
      ...new Set(envelopes.map((envelope) => `${envelope.tenantid}/${envelope.subject}`)),
    ].sort();

    // One statement: writers of one aggregate take turns until commit (the advisory lock is
    // taken before the rows get their positions), so positions follow commit order within an
    // aggregate and the relay can never see a later event before an earlier one; the
    // notification is delivered at commit only, and identical ones of a transaction collapse.
    // Nothing waits for its answer: it goes out with the transaction's next statement or its
    // COMMIT (ADR 0067), and a refusal fails that, and so the transaction.
    await deferWrite(manager, this.insertSql, [
      JSON.stringify(envelopes),
      JSON.stringify(headers),
      this.table,
      aggregates,
      this.channel,
      notificationOrigin(manager.connection),
    ]);
    // The relays of this data source start at the commit; the notification wakes the others.
    manager.queryRunner.data[this.writtenMark] = true;
    return envelopes;
  }
}
