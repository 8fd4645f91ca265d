import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { withinStatementDeadline } from '@comanda/persistence';
import { Client, type Pool } from 'pg';
import { DataSource, type EntitySubscriberInterface, type TransactionCommitEvent } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { MESSAGE_BUS, type MessageBus, type MessageHeaders } from '../bus/message-bus';
import { classifyFailure } from '../bus/failure-kind';
import { BusClosedError, PublishFailedError } from '../bus/messaging.errors';
import { describeError } from '../bus/retry-schedule';
import {
  backoffMs,
  MESSAGING_OPTIONS,
  qualifiedTable,
  type MessagingOptions,
} from '../messaging.options';
import { notificationOrigin, outboxChannel, outboxWrittenMark } from './outbox-channel';
import { deleteInBatches } from '../polling/delete-in-batches';
import {
  loggedLoopFailures,
  PollingLoop,
  REPEATED_FAILURE_REPORT_MS,
  type LoopState,
} from '../polling/polling-loop';

interface ClaimedRow {
  position: string;
  tenant_id: string;
  subject: string;
  event: CloudEvent;
  headers: MessageHeaders;
  attempts: number;
}

/** Advisory lock key of a schema's active relay (the two-int form, apart from the writer's). */
const LEADER_LOCK = 'comanda:outbox-relay';

/** The listener's statements wait this long when the pool names no acquire deadline. */
const LISTENER_DEADLINE_MS = 10_000;

export interface RelayBatchResult {
  claimed: number;
  published: number;
}

/**
 * Publishes committed outbox rows through the bus (docs/adr/0009-relay-leadership.md). Woken
 * when a transaction of its own data source that wrote rows commits, by NOTIFY from the
 * writers of other processes and data sources (its own notifications pass: their commit woke
 * it, docs/adr/0062), with polling as the fallback. One relay per service schema is active
 * at a time: the one whose listener connection holds the schema's advisory lock; the others
 * stand by and take over within a poll when its connection ends. The active relay
 * reads a batch of unpublished rows in position order through the partial index (its cost
 * follows the batch, not the backlog), skipping aggregates whose oldest row waits in
 * back-off, publishes each aggregate's rows in order (back to back where the bus keeps
 * their order, ADR 0064; aggregates side by side), and marks what the bus confirmed in one
 * statement. A row that fails on its own `maxAttempts` times is parked (`dead_at`); outages
 * (bus closed, confirm timeout, returned as unroutable) are retried with back-off without
 * counting.
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly table: string;
  private readonly channel: string;
  private readonly pollMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly publishTimeoutMs: number | undefined;
  private readonly retentionMs: number;
  private readonly cleanupEveryMs: number;
  private readonly batchSize: number;
  private readonly maxAttempts: number;
  private readonly loop: PollingLoop;
  private listener?: Client;
  private listenerFailures = 0;
  private leader = false;
  private closing = false;
  /** Batches run one at a time (the loop and a drain may ask together). */
  private batching: Promise<unknown> = Promise.resolve();
  /** Publishes failed in a row for the broker or the network (reset by one that works). */
  private transientFailures = 0;
  /** How many of those the last report covered, and when the streak was last reported. */
  private transientReported = 0;
  private transientReportedAt = 0;
  private nextCleanupAt = 0;
  /**
   * Wakes the loop when a transaction of this process that wrote to the outbox commits: the
   * round starts then, not when the database's notification comes back to the listener.
   */
  private readonly commits: EntitySubscriberInterface;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {
    const relay = options.relay ?? {};
    this.table = qualifiedTable(options.schema, 'outbox');
    this.channel = outboxChannel(options.schema);
    this.pollMs = options.relayPollMs ?? 1_000;
    this.retryBaseMs = relay.retryBaseMs ?? 1_000;
    this.retryMaxMs = relay.retryMaxMs ?? 60_000;
    this.publishTimeoutMs = relay.publishTimeoutMs;
    this.retentionMs = relay.retentionMs ?? 7 * 24 * 3_600_000;
    this.cleanupEveryMs = relay.cleanupEveryMs ?? 60_000;
    this.batchSize = relay.batchSize ?? 500;
    this.maxAttempts = relay.maxAttempts ?? 10;
    const report = loggedLoopFailures(this.logger, `outbox relay of "${options.schema}"`);
    this.loop = new PollingLoop(
      this.pollMs,
      () => this.round(),
      report.onError,
      report.onRecovered,
    );
    const mark = outboxWrittenMark(this.channel);
    this.commits = {
      // A query runner may run one transaction after another: each starts unmarked. (Every
      // relay of the data source sees the mark: it is cleared at the next start only.)
      beforeTransactionStart: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) delete queryRunner.data[mark];
      },
      // A savepoint released leaves the outer transaction open: not yet.
      afterTransactionCommit: ({ queryRunner }: TransactionCommitEvent) => {
        if (!queryRunner.isTransactionActive && queryRunner.data[mark]) this.loop.wake();
      },
    };
  }

  start(): void {
    this.closing = false;
    if (!this.dataSource.subscribers.includes(this.commits)) {
      this.dataSource.subscribers.push(this.commits);
    }
    this.loop.start();
  }

  /** Stops polling and listening (giving up leadership); the batch in progress is finished first. */
  async stop(): Promise<void> {
    this.closing = true;
    const at = this.dataSource.subscribers.indexOf(this.commits);
    if (at >= 0) this.dataSource.subscribers.splice(at, 1);
    await this.loop.stop();
    await this.batching;
    await this.closeListener();
  }

  /**
   * Publishes everything publishable now (rows in back-off stay for the next run); for
   * shutdown. A replica that is not the active relay has nothing to drain.
   */
  async drain(): Promise<number> {
    const wasClosing = this.closing;
    this.closing = false;
    let published = 0;
    try {
      for (;;) {
        const batch = await this.publishBatch();
        published += batch.published;
        if (batch.published === 0) return published;
      }
    } finally {
      this.closing = wasClosing;
      if (wasClosing || !this.loop.isRunning) await this.closeListener();
    }
  }

  /** True while this replica is the schema's active relay. */
  isLeader(): boolean {
    return this.leader;
  }

  /** Running, and its last round trip to the database worked. */
  isHealthy(stuckAfterMs?: number): boolean {
    return this.loop.isHealthy(stuckAfterMs);
  }

  /** Its loop's state for readiness: ok, stopped, stuck in a round, or failing. */
  state(stuckAfterMs?: number): LoopState {
    return this.loop.state(stuckAfterMs);
  }

  /** Claims one batch and publishes it; exposed for drain and tests. */
  publishBatch(): Promise<RelayBatchResult> {
    const run = this.batching.then(() => this.publishBatchNow());
    this.batching = run.catch(() => undefined);
    return run;
  }

  private async publishBatchNow(): Promise<RelayBatchResult> {
    await this.ensureListening();
    if (!this.leader) return { claimed: 0, published: 0 };
    const rows = await this.claim();
    if (rows.length === 0) return { claimed: 0, published: 0 };
    const aggregates = new Map<string, ClaimedRow[]>();
    for (const row of rows) {
      const key = `${row.tenant_id}\u0000${row.subject}`;
      const list = aggregates.get(key) ?? [];
      list.push(row); // already in position order
      aggregates.set(key, list);
    }
    const outcomes = await Promise.all(
      [...aggregates.values()].map((list) => this.publishAggregate(list)),
    );
    const published = outcomes.flat();
    if (published.length > 0) {
      // One statement marks the whole batch. Its commit does not wait for the WAL flush
      // (docs/adr/0048): a mark lost with a crash of PostgreSQL publishes the rows again,
      // which every consumer's inbox absorbs, while a flush here would queue the service's
      // own commits behind it. `set_config(…, true)` lasts for this statement's transaction.
      await this.dataSource.query(
        `UPDATE ${this.table}
         SET published_at = now(), last_error = NULL, locked_until = NULL, locked_by = NULL
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS without_flush
         WHERE position = ANY($1::bigint[])`,
        [published],
      );
      if (this.transientFailures > 0) {
        this.logger.log(
          `publishing works again after ${this.transientFailures} failed publish(es) (the broker or the network)`,
        );
      }
      this.transientFailures = 0;
      this.transientReported = 0;
    }
    return { claimed: rows.length, published: published.length };
  }

  /** One round of the loop: listen, publish a batch, tidy up; more is waiting when the batch was full. */
  private async round(): Promise<boolean> {
    const { claimed, published } = await this.publishBatch();
    const moreToClean = await this.cleanupIfDue();
    return (claimed >= this.batchSize && published > 0) || moreToClean;
  }

  /**
   * The oldest unpublished rows, in position order, through the partial index on them. A
   * row whose aggregate has an earlier (or the same) row waiting in back-off is left out, so
   * an aggregate never overtakes its own failed event; the back-off index holds only failed
   * rows, so the check costs nothing while nothing fails.
   */
  private async claim(): Promise<ClaimedRow[]> {
    const rows: ClaimedRow[] = await this.dataSource.query(claimStatement(this.table), [
      this.batchSize,
    ]);
    return rows;
  }

  /**
   * Publishes one aggregate's rows in position order and returns the positions the bus
   * confirmed. On a bus that queues in publish order (RabbitMQ), back to back: each row is
   * written to the channel without waiting for the confirm of the one before, and their
   * confirms are awaited together (ADR 0064); the first refused row is recorded as the
   * aggregate's failure, rows after it that were confirmed went out with it and count as
   * published, the others are claimed again. Elsewhere (the in-process bus confirms once
   * handled), one at a time, stopping at the first failure.
   */
  private async publishAggregate(rows: ClaimedRow[]): Promise<string[]> {
    if (!this.bus.queuesInPublishOrder) return this.publishOneByOne(rows);
    if (!this.leader) return []; // lost the lock meanwhile: the new leader carries on
    // The broker's time, not the relay's: a broker away does not make the relay stuck.
    const outcomes = await this.loop.waitingOnBroker(() =>
      Promise.allSettled(rows.map((row) => this.publish(row))),
    );
    const published: string[] = [];
    let refused: { row: ClaimedRow; reason: unknown } | undefined;
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') published.push(rows[index].position);
      else refused ??= { row: rows[index], reason: outcome.reason };
    });
    if (refused) await this.recordFailure(refused.row, refused.reason);
    return published;
  }

  private async publishOneByOne(rows: ClaimedRow[]): Promise<string[]> {
    const published: string[] = [];
    for (const row of rows) {
      if (!this.leader) break; // lost the lock meanwhile: the new leader carries on
      try {
        await this.publish(row);
      } catch (error) {
        await this.recordFailure(row, error);
        break;
      }
      published.push(row.position);
    }
    return published;
  }

  private async publish(row: ClaimedRow): Promise<void> {
    const timeoutMs = this.publishTimeoutMs;
    if (timeoutMs === undefined) return this.bus.publish(row.event, row.headers);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new PublishFailedError(row.event.id, `not confirmed within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.bus.publish(row.event, row.headers), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async recordFailure(row: ClaimedRow, error: unknown): Promise<void> {
    // The broker or the network, not the event: never counted, so an outage of any length
    // parks nothing, and published again in the next round (not held back by a delay, so the
    // backlog drains as soon as the broker is back).
    const transient =
      error instanceof PublishFailedError ||
      error instanceof BusClosedError ||
      classifyFailure(error) === 'infrastructure';
    const failures = transient ? ++this.transientFailures : row.attempts + 1;
    // A streak starts now, before the awaits below: the failures of the same round, which
    // finish their writes in any order, fall within its first report's interval.
    if (transient && failures === 1) this.transientReportedAt = Date.now();
    const delay = backoffMs(failures, this.retryBaseMs, this.retryMaxMs);
    const reason = describeError(error);
    const [rows]: [Array<{ dead: boolean }>, number] = await this.dataSource.query(
      `UPDATE ${this.table}
       SET attempts = attempts + $4, last_error = $2,
           next_attempt_at = now() + $3 * interval '1 millisecond',
           dead_at = CASE WHEN attempts + $4 >= $5 THEN now() END
       WHERE position = $1
       RETURNING dead_at IS NOT NULL AS dead`,
      [row.position, reason, delay, transient ? 0 : 1, this.maxAttempts],
    );
    if (rows[0]?.dead) {
      this.logger.error(
        `outbox row ${row.position} (${row.event.type} ${row.event.id}) parked after ${failures} failed publishes: ${reason}`,
      );
    } else if (transient) {
      // Not counted, so the claim does not hold the row back (only counted failures wait out
      // next_attempt_at): it goes again in the relay's next round, whose publish waits for
      // the broker to come back.
      this.reportTransient(row, reason, failures);
    } else {
      this.logger.warn(
        `publishing ${row.event.type} ${row.event.id} failed (attempt ${failures}), retrying in ${delay} ms: ${reason}`,
      );
    }
  }

  /**
   * An outage fails every pending aggregate in every round: the first failure of a streak is
   * reported, then at most one line per REPEATED_FAILURE_REPORT_MS with the count, not one
   * line per event and round (with 500 aggregates waiting, that was 500 warnings a round).
   */
  private reportTransient(row: ClaimedRow, reason: string, failures: number): void {
    const now = Date.now();
    if (failures > 1 && now - this.transientReportedAt < REPEATED_FAILURE_REPORT_MS) return;
    this.logger.warn(
      failures === 1
        ? `publishing ${row.event.type} ${row.event.id} failed (the broker or the network, not counted), publishing again in the next round: ${reason}`
        : `${failures - this.transientReported} more publish(es) failed (the broker or the network, not counted; ${failures} in a row), each published again in the next round; the last: ${reason} (reported every ${REPEATED_FAILURE_REPORT_MS / 1_000} s while it lasts)`,
    );
    this.transientReportedAt = now;
    this.transientReported = Math.max(this.transientReported, failures);
  }

  /**
   * Deletes published rows past their retention in batches until none is left (bounded per
   * round; a round that hit the bound asks for the next one at once).
   */
  private async cleanupIfDue(): Promise<boolean> {
    if (!this.leader || Date.now() < this.nextCleanupAt) return false;
    const more = await deleteInBatches(
      this.dataSource,
      `DELETE FROM ${this.table} WHERE position IN (
         SELECT position FROM ${this.table}
         WHERE published_at < now() - $1 * interval '1 millisecond'
         ORDER BY published_at LIMIT $2)`,
      this.retentionMs,
    );
    if (!more) this.nextCleanupAt = Date.now() + this.cleanupEveryMs;
    return more;
  }

  /** A dedicated connection (outside the pool) for LISTEN; reopened after it drops. */
  private async ensureListening(): Promise<void> {
    if (this.closing) return;
    if (this.listener) {
      if (!this.leader) this.leader = await this.tryLead(this.listener);
      return;
    }
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const client = new Client({
      ...pool.options,
      application_name: `comanda-outbox-listener-${this.options.schema}`,
      keepAlive: true,
    });
    const dropped = (reason: string) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.leader = false;
      if (this.loop.isRunning)
        this.logger.warn(`outbox listener of "${this.options.schema}" dropped: ${reason}`);
      // Loop again at once: re-listen, and publish whatever was committed meanwhile.
      this.loop.wake();
      void client.end().catch(() => undefined);
    };
    // A commit of this data source woke the relay already (see `commits`).
    const ownOrigin = notificationOrigin(this.dataSource);
    client.on('notification', ({ payload }) => {
      if (payload !== ownOrigin) this.loop.wake();
    });
    client.on('error', (error) => dropped(describeError(error)));
    client.on('end', () => dropped('connection ended'));
    try {
      await client.connect();
      await this.onListener(client, () => client.query(`LISTEN "${this.channel}"`));
    } catch (error) {
      await client.end().catch(() => undefined);
      this.listenerFailures += 1;
      if (this.listenerFailures === 1) {
        this.logger.warn(
          `outbox listener of "${this.options.schema}" cannot connect or listen, trying again every ${this.pollMs} ms: ${describeError(error)}`,
        );
      }
      return;
    }
    this.listenerFailures = 0;
    this.listener = client;
    this.leader = await this.tryLead(client);
  }

  /** Takes the schema's relay lock on the listener connection; it goes with the connection. */
  private async tryLead(client: Client): Promise<boolean> {
    try {
      const { rows } = await this.onListener(client, () =>
        client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked',
          [LEADER_LOCK, this.options.schema],
        ),
      );
      return rows[0]?.locked === true;
    } catch {
      return false;
    }
  }

  /**
   * A statement of the listener connection, which is outside the pool and so outside the
   * statement deadline's watch (ADR 0057): when the server has not answered within the pool's
   * acquire deadline (the statement deadline when that is shorter), the connection is closed.
   * The statement fails, the listener counts as dropped, and the next round listens again, on
   * a new connection; a stalled LISTEN or lock would otherwise hold every round of the relay.
   */
  private onListener<T>(client: Client, statement: () => Promise<T>): Promise<T> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const deadlineMs = pool.options.connectionTimeoutMillis || LISTENER_DEADLINE_MS;
    return withinStatementDeadline(client, deadlineMs, statement);
  }

  private async closeListener(): Promise<void> {
    const client = this.listener;
    this.listener = undefined;
    this.leader = false;
    if (client) await client.end().catch(() => undefined);
  }
}

/** The relay's claim (see `claim`): `$1` is the batch size. Exported for the benchmark. */
export function claimStatement(table: string): string {
  return `SELECT o.position, o.tenant_id, o.subject, o.event, o.headers, o.attempts
       FROM ${table} o
       WHERE o.published_at IS NULL AND o.dead_at IS NULL
         AND NOT EXISTS (
           SELECT 1 FROM ${table} b
           WHERE b.published_at IS NULL AND b.dead_at IS NULL AND b.attempts > 0
             AND b.tenant_id = o.tenant_id AND b.subject = o.subject
             AND b.position <= o.position AND b.next_attempt_at > now())
       ORDER BY o.position
       LIMIT $1`;
}
