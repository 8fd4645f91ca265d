import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { Client, type Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { MESSAGE_BUS, type MessageBus, type MessageHeaders } from '../bus/message-bus';
import { describeError } from '../bus/retry-schedule';
import {
  backoffMs,
  MESSAGING_OPTIONS,
  qualifiedTable,
  type MessagingOptions,
} from '../messaging.options';
import { outboxChannel } from './outbox-channel';
import { PollingLoop } from '../polling/polling-loop';

interface ClaimedRow {
  position: string;
  tenant_id: string;
  subject: string;
  event: CloudEvent;
  headers: MessageHeaders;
  attempts: number;
}

export interface RelayBatchResult {
  claimed: number;
  published: number;
}

/**
 * Publishes committed outbox rows through the bus. Woken by NOTIFY from the writer, with
 * polling as the fallback. Rows are claimed with SKIP LOCKED and a lease, one aggregate
 * (tenant + subject) at a time from its oldest unpublished row, so replicas share the work
 * without ever publishing one aggregate's events out of order. A row is marked published
 * only after the bus confirmed it; a failed publish is retried with back-off, forever.
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly table: string;
  private readonly channel: string;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly batchAggregates: number;
  private readonly batchPerAggregate: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly publishTimeoutMs: number | undefined;
  private readonly retentionMs: number;
  private readonly cleanupEveryMs: number;
  private readonly inboxRetentionMs: number;
  private readonly inboxTable: string;
  private readonly loop: PollingLoop;
  private listener?: Client;
  private listenerFailures = 0;
  private nextCleanupAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {
    const relay = options.relay ?? {};
    this.table = qualifiedTable(options.schema, 'outbox');
    this.channel = outboxChannel(options.schema);
    this.pollMs = options.relayPollMs ?? 1_000;
    this.leaseMs = relay.leaseMs ?? 30_000;
    this.batchAggregates = relay.batchAggregates ?? 50;
    this.batchPerAggregate = relay.batchPerAggregate ?? 100;
    this.retryBaseMs = relay.retryBaseMs ?? 1_000;
    this.retryMaxMs = relay.retryMaxMs ?? 60_000;
    this.publishTimeoutMs = relay.publishTimeoutMs;
    this.retentionMs = relay.retentionMs ?? 7 * 24 * 3_600_000;
    this.cleanupEveryMs = relay.cleanupEveryMs ?? 600_000;
    this.inboxRetentionMs = relay.inboxRetentionMs ?? 30 * 24 * 3_600_000;
    this.inboxTable = qualifiedTable(options.schema, 'inbox');
    this.loop = new PollingLoop(
      this.pollMs,
      () => this.round(),
      (error) =>
        this.logger.error(`outbox relay of "${options.schema}" failed: ${describeError(error)}`),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling and listening; the batch in progress is finished first. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.closeListener();
  }

  /** Publishes everything publishable now (rows in back-off stay for the next run); for shutdown. */
  async drain(): Promise<number> {
    let published = 0;
    for (;;) {
      const batch = await this.publishBatch();
      published += batch.published;
      if (batch.claimed === 0) return published;
    }
  }

  /** Running, and its last round trip to the database worked. */
  isHealthy(): boolean {
    return this.loop.isHealthy();
  }

  /** Claims one batch and publishes it; exposed for drain and tests. */
  async publishBatch(): Promise<RelayBatchResult> {
    const claimedAt = Date.now();
    const rows = await this.claim();
    if (rows.length === 0) return { claimed: 0, published: 0 };
    const aggregates = new Map<string, ClaimedRow[]>();
    for (const row of rows) {
      const key = `${row.tenant_id}\u0000${row.subject}`;
      const list = aggregates.get(key) ?? [];
      list.push(row);
      aggregates.set(key, list);
    }
    const outcomes = await Promise.allSettled(
      [...aggregates.values()].map((list) =>
        this.publishAggregate(
          list.sort((a, b) => comparePositions(a.position, b.position)),
          claimedAt + this.leaseMs / 2,
        ),
      ),
    );
    let published = 0;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') throw outcome.reason;
      published += outcome.value;
    }
    return { claimed: rows.length, published };
  }

  /** One round of the loop: listen, publish a batch, tidy up; more is waiting when it claimed any. */
  private async round(): Promise<boolean> {
    await this.ensureListening();
    const { claimed } = await this.publishBatch();
    await this.cleanupIfDue();
    return claimed > 0;
  }

  private async claim(): Promise<ClaimedRow[]> {
    // Heads are the oldest unpublished row of each aggregate; locking a head (SKIP LOCKED)
    // and leasing the aggregate's next rows with it gives one relay the whole aggregate.
    const [rows]: [ClaimedRow[], number] = await this.dataSource.query(
      `WITH heads AS (
         SELECT o.position, o.tenant_id, o.subject FROM ${this.table} o
         WHERE o.published_at IS NULL
           AND o.next_attempt_at <= now()
           AND (o.locked_until IS NULL OR o.locked_until < now())
           AND NOT EXISTS (
             SELECT 1 FROM ${this.table} e
             WHERE e.published_at IS NULL AND e.tenant_id = o.tenant_id
               AND e.subject = o.subject AND e.position < o.position)
         ORDER BY o.position
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ), batch AS (
         SELECT ranked.position FROM (
           SELECT u.position,
                  row_number() OVER (PARTITION BY u.tenant_id, u.subject ORDER BY u.position) AS n
           FROM ${this.table} u
           JOIN heads h ON u.tenant_id = h.tenant_id AND u.subject = h.subject
           WHERE u.published_at IS NULL
         ) ranked
         WHERE ranked.n <= $2
       )
       UPDATE ${this.table} o
       SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $4
       FROM batch
       WHERE o.position = batch.position
       RETURNING o.position, o.tenant_id, o.subject, o.event, o.headers, o.attempts`,
      [this.batchAggregates, this.batchPerAggregate, this.leaseMs, this.instance],
    );
    return rows;
  }

  /**
   * Publishes one aggregate's claimed rows in order; stops at the first failure, and hands
   * the rest back once half the lease is used so no other relay can take the aggregate over
   * while this one is still publishing it.
   */
  private async publishAggregate(rows: ClaimedRow[], handBackAt: number): Promise<number> {
    let published = 0;
    for (const [index, row] of rows.entries()) {
      if (Date.now() > handBackAt) {
        await this.release(rows.slice(index));
        return published;
      }
      try {
        await this.publish(row);
      } catch (error) {
        await this.recordFailure(row, error, rows.slice(index + 1));
        return published;
      }
      await this.dataSource.query(
        `UPDATE ${this.table}
         SET published_at = now(), locked_until = NULL, locked_by = NULL, last_error = NULL
         WHERE position = $1`,
        [row.position],
      );
      published += 1;
    }
    return published;
  }

  private async publish(row: ClaimedRow): Promise<void> {
    const timeoutMs = this.publishTimeoutMs;
    if (timeoutMs === undefined) return this.bus.publish(row.event, row.headers);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not confirmed within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.bus.publish(row.event, row.headers), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async recordFailure(row: ClaimedRow, error: unknown, rest: ClaimedRow[]): Promise<void> {
    const failures = row.attempts + 1;
    const delay = backoffMs(failures, this.retryBaseMs, this.retryMaxMs);
    const reason = describeError(error);
    this.logger.warn(
      `publishing ${row.event.type} ${row.event.id} failed (attempt ${failures}), retrying in ${delay} ms: ${reason}`,
    );
    await this.dataSource.query(
      `UPDATE ${this.table}
       SET attempts = attempts + 1, last_error = $2,
           next_attempt_at = now() + $3 * interval '1 millisecond',
           locked_until = NULL, locked_by = NULL
       WHERE position = $1`,
      [row.position, reason, delay],
    );
    // The rest of the aggregate waits behind the failed row; release it for whoever retries.
    await this.release(rest);
  }

  private async release(rows: ClaimedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `UPDATE ${this.table} SET locked_until = NULL, locked_by = NULL
       WHERE position = ANY($1::bigint[]) AND locked_by = $2 AND published_at IS NULL`,
      [rows.map((row) => row.position), this.instance],
    );
  }

  private async cleanupIfDue(): Promise<void> {
    if (Date.now() < this.nextCleanupAt) return;
    this.nextCleanupAt = Date.now() + this.cleanupEveryMs;
    await this.dataSource.query(
      `DELETE FROM ${this.table} WHERE position IN (
         SELECT position FROM ${this.table}
         WHERE published_at < now() - $1 * interval '1 millisecond'
         LIMIT 10000)`,
      [this.retentionMs],
    );
    // The relay is the service's one housekeeping loop: it also bounds the inbox, which
    // otherwise grows by one row per consumed event forever.
    await this.dataSource.query(
      `DELETE FROM ${this.inboxTable} WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM ${this.inboxTable}
         WHERE processed_at < now() - $1 * interval '1 millisecond'
         LIMIT 10000)`,
      [this.inboxRetentionMs],
    );
  }

  /** A dedicated connection (outside the pool) for LISTEN; reopened after it drops. */
  private async ensureListening(): Promise<void> {
    if (this.listener || !this.loop.isRunning) return;
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const client = new Client({
      ...pool.options,
      application_name: `comanda-outbox-listener-${this.options.schema}`,
      keepAlive: true,
    });
    const dropped = (reason: string) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      if (this.loop.isRunning)
        this.logger.warn(`outbox listener of "${this.options.schema}" dropped: ${reason}`);
      // Loop again at once: re-listen, and publish whatever was committed meanwhile.
      this.loop.wake();
      void client.end().catch(() => undefined);
    };
    client.on('notification', () => this.loop.wake());
    client.on('error', (error) => dropped(describeError(error)));
    client.on('end', () => dropped('connection ended'));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      this.listenerFailures += 1;
      if (this.listenerFailures === 1) {
        this.logger.warn(
          `outbox listener of "${this.options.schema}" cannot connect, polling every ${this.pollMs} ms: ${describeError(error)}`,
        );
      }
      return;
    }
    this.listenerFailures = 0;
    this.listener = client;
  }

  private async closeListener(): Promise<void> {
    const client = this.listener;
    this.listener = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}

function comparePositions(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}
