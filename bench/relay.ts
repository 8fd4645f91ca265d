/**
 * The outbox relay against the issue-12 targets, in one run on one machine (nothing here is
 * asserted; the figures are printed):
 *   - claim time with 1,000,000 unpublished rows (target ≤ 10 ms);
 *   - relay throughput against a hand-built batch publisher on the same PostgreSQL and
 *     RabbitMQ with publisher confirms (target ≥ 0.5×);
 *   - retention: delete rate against the relay's publish rate (target ≥ 10×).
 *
 *   node -r ./tools/register.js bench/relay.ts
 *
 * Needs PostgreSQL and RabbitMQ like the tests (DATABASE_URL / AMQP_URL or the local ports).
 */
import 'reflect-metadata';
import { connect } from 'amqplib';
import type { DataSource } from 'typeorm';
import { routingKeyOf, type CloudEvent } from '@comanda/contracts';
import {
  MESSAGING_MIGRATIONS,
  OutboxRelay,
  RabbitMqBus,
  type MessagingOptions,
} from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { claimStatement } from '../libs/messaging/src/outbox/outbox.relay';
import { createTestBroker, createTestDatabase } from '@comanda/testing';
import { median } from './support/median';

const SCHEMA = 'bench';
const BACKLOG = 1_000_000;
const THROUGHPUT_ROWS = 20_000;
const CLEANUP_ROWS = 200_000;
const OUTBOX = `"${SCHEMA}"."outbox"`;
const options: MessagingOptions = {
  service: 'bench',
  schema: SCHEMA,
  relayPollMs: 50,
  relay: { retentionMs: 60_000 },
};

/** Unpublished rows `from..to` spread over 10,000 aggregates, written in one statement. */
async function fillOutbox(ds: DataSource, count: number, publishedAgo?: string): Promise<void> {
  await ds.query(
    `INSERT INTO ${OUTBOX} (event_id, tenant_id, subject, event_type, event, published_at)
     SELECT id, 'tenant-a', 'agg-' || (n % 10000), 'config.updated',
            jsonb_build_object('specversion', '1.0', 'id', id::text, 'source', '/comanda/bench',
              'type', 'config.updated', 'subject', 'agg-' || (n % 10000), 'tenantid', 'tenant-a',
              'time', now(), 'datacontenttype', 'application/json',
              'data', jsonb_build_object('n', n)),
            ${publishedAgo ? `now() - interval '${publishedAgo}'` : 'NULL'}
     FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, $1) AS n) s`,
    [count],
  );
  await ds.query(`ANALYZE ${OUTBOX}`);
}

async function unpublished(ds: DataSource): Promise<number> {
  const [row] = await ds.query(
    `SELECT count(*)::int AS n FROM ${OUTBOX} WHERE published_at IS NULL AND dead_at IS NULL`,
  );
  return (row as { n: number }).n;
}

/** The baseline: read 500 rows, publish them all with confirms, mark them, repeat. */
async function handBuiltPublisher(ds: DataSource, url: string, exchange: string): Promise<number> {
  const connection = await connect(url);
  const channel = await connection.createConfirmChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const started = performance.now();
  let total = 0;
  for (;;) {
    const rows: Array<{ position: string; event: CloudEvent }> = await ds.query(
      `SELECT position, event FROM ${OUTBOX} WHERE published_at IS NULL AND dead_at IS NULL
       ORDER BY position LIMIT 500`,
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      channel.publish(exchange, routingKeyOf(row.event), Buffer.from(JSON.stringify(row.event)), {
        persistent: true,
        messageId: row.event.id,
      });
    }
    await channel.waitForConfirms();
    await ds.query(`UPDATE ${OUTBOX} SET published_at = now() WHERE position = ANY($1::bigint[])`, [
      rows.map((row) => row.position),
    ]);
    total += rows.length;
  }
  const seconds = (performance.now() - started) / 1000;
  await connection.close();
  return total / seconds;
}

async function relayThroughput(ds: DataSource, bus: RabbitMqBus): Promise<number> {
  const relay = new OutboxRelay(ds, bus, options);
  const started = performance.now();
  const published = await relay.drain();
  const seconds = (performance.now() - started) / 1000;
  await relay.stop();
  if (published !== THROUGHPUT_ROWS) throw new Error(`relay published ${published} rows`);
  return published / seconds;
}

async function main(): Promise<void> {
  const database = await createTestDatabase('bench_relay');
  const broker = await createTestBroker('bench-relay');
  const ds = await openDatabase({
    url: database.url,
    schema: SCHEMA,
    entities: [],
    migrations: MESSAGING_MIGRATIONS,
    poolSize: 10,
  });
  // Published messages must land somewhere bound, as in production (mandatory publishes).
  const bus = new RabbitMqBus({
    url: broker.url,
    exchange: broker.exchange,
    queuePrefix: broker.queuePrefix,
  });
  const admin = await connect(broker.url);
  const adminChannel = await admin.createChannel();
  const sink = `${broker.queuePrefix}bench.sink`;
  try {
    await bus.declare([
      { queue: 'bench.sink', eventTypes: ['config.updated'], retry: { delaysMs: [] } },
    ]);

    // 1. Claim with a backlog of 1,000,000 unpublished rows.
    process.stdout.write(`filling ${BACKLOG} unpublished rows...\n`);
    await fillOutbox(ds, BACKLOG);
    const relay = new OutboxRelay(ds, bus, options);
    const claim = () => (relay as unknown as { claim(): Promise<unknown[]> }).claim();
    await claim(); // warm the cache
    const claimMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const rows = await claim();
      claimMs.push(performance.now() - started);
      if (rows.length !== 500) throw new Error(`claimed ${rows.length}`);
    }
    // The statement alone, as PostgreSQL executes it (no transfer or parsing of 500 events).
    const plans: Array<{ 'QUERY PLAN': Array<{ 'Execution Time': number }> }> = await ds.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${claimStatement(OUTBOX)}`,
      [500],
    );
    const statementMs = plans[0]['QUERY PLAN'][0]['Execution Time'];
    await ds.query(`TRUNCATE ${OUTBOX}`);

    // 2. Relay against the hand-built batch publisher, same backlog each.
    await fillOutbox(ds, THROUGHPUT_ROWS);
    const baseline = await handBuiltPublisher(ds, broker.url, broker.exchange);
    await ds.query(`TRUNCATE ${OUTBOX}`);
    await adminChannel.purgeQueue(sink);
    await fillOutbox(ds, THROUGHPUT_ROWS);
    const relayRate = await relayThroughput(ds, bus);
    if ((await unpublished(ds)) !== 0) throw new Error('the relay left rows unpublished');
    await ds.query(`TRUNCATE ${OUTBOX}`);
    await adminChannel.purgeQueue(sink);

    // 3. Retention: rows published two hours ago, deleted in batches.
    await fillOutbox(ds, CLEANUP_ROWS, '2 hours');
    const cleaner = new OutboxRelay(ds, bus, options);
    const started = performance.now();
    const cleanup = cleaner as unknown as { leader: boolean; cleanupIfDue(): Promise<boolean> };
    cleanup.leader = true; // only the active relay cleans; this one is made active by hand
    while (await cleanup.cleanupIfDue()) {
      (cleaner as unknown as { nextCleanupAt: number }).nextCleanupAt = 0;
    }
    const cleanupRate = CLEANUP_ROWS / ((performance.now() - started) / 1000);
    const [left] = await ds.query(`SELECT count(*)::int AS n FROM ${OUTBOX}`);

    const fmt = (n: number) => n.toFixed(0).padStart(8);
    process.stdout.write(
      [
        '',
        `claim of 500 rows, ${BACKLOG} unpublished: statement ${statementMs.toFixed(2)} ms in PostgreSQL (target ≤ 10 ms); with transfer and parsing of the 500 events: median ${median(claimMs).toFixed(2)} ms, max ${Math.max(...claimMs).toFixed(2)} ms`,
        `hand-built batch publisher: ${fmt(baseline)} events/s`,
        `outbox relay:               ${fmt(relayRate)} events/s  = ${(relayRate / baseline).toFixed(2)} × baseline (target ≥ 0.5)`,
        `retention (batched delete): ${fmt(cleanupRate)} rows/s    = ${(cleanupRate / relayRate).toFixed(1)} × relay rate (target ≥ 10); rows left: ${(left as { n: number }).n}`,
        '',
      ].join('\n'),
    );
  } finally {
    await adminChannel.deleteQueue(sink).catch(() => undefined);
    await adminChannel.deleteQueue(`${sink}.dlq`).catch(() => undefined);
    await adminChannel.deleteExchange(broker.exchange).catch(() => undefined);
    await admin.close();
    await bus.close();
    await ds.destroy();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
