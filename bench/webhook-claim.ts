/**
 * The webhook sender's claim against a backlog (nothing here is asserted; the figures are
 * printed): how long one claim takes when subscriptions hold many pending deliveries, next to
 * the statement it replaced (every due delivery sorted by subscription), on the same rows in
 * the same run. Each claim runs in a transaction that is rolled back, so every one sees the
 * same backlog.
 *
 *   node -r ./tools/register.js bench/webhook-claim.ts
 *
 * Needs PostgreSQL like the tests (DATABASE_URL or 127.0.0.1:5432). Knobs:
 * WEBHOOK_BENCH_SUBSCRIPTIONS (50), WEBHOOK_BENCH_BACKLOGS (comma-separated pending
 * deliveries per subscription, default 20,200,2000).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase, UnitOfWork, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { createTestDatabase } from '@comanda/testing';
import { DeliverySender } from '../libs/services/orders/src/subscriptions/delivery-sender';
import { RecordAttempt } from '../libs/services/orders/src/subscriptions/record-attempt.usecase';
import { WebhookSender } from '../libs/services/orders/src/subscriptions/webhook-sender';
import { WebhooksConfig } from '../libs/services/orders/src/subscriptions/webhooks.config';
import { median } from './support/median';
import {
  SUBSCRIPTION_ENTITIES,
  subscriptionMigrations,
} from '../libs/services/orders/src/subscriptions';

const SUBSCRIPTIONS = Number(process.env.WEBHOOK_BENCH_SUBSCRIPTIONS ?? '50');
const BACKLOGS = (process.env.WEBHOOK_BENCH_BACKLOGS ?? '20,200,2000').split(',').map(Number);
const CLAIMS = 15;
const SLOTS = 16;
const DELIVERIES = '"orders"."webhook_deliveries"';

/** The claim before 26 November 2026: every due delivery, sorted by subscription. */
const SORTING_CLAIM = `UPDATE ${DELIVERIES} d
  SET locked_until = now() + $1 * interval '1 millisecond', lease_id = $2
  FROM (
    SELECT id FROM ${DELIVERIES}
    WHERE status = 'pending' AND next_attempt_at <= now()
      AND (locked_until IS NULL OR locked_until < now())
      AND id IN (
        SELECT DISTINCT ON (c.subscription_id) c.id FROM ${DELIVERIES} c
        WHERE c.status = 'pending' AND c.next_attempt_at <= now()
          AND (c.locked_until IS NULL OR c.locked_until < now())
          AND NOT EXISTS (
            SELECT 1 FROM ${DELIVERIES} busy
            WHERE busy.subscription_id = c.subscription_id AND busy.locked_until >= now())
        ORDER BY c.subscription_id, c.next_attempt_at, c.id)
    ORDER BY next_attempt_at
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  ) claimed, "orders"."webhook_subscriptions" s
  WHERE d.id = claimed.id AND s.id = d.subscription_id
  RETURNING d.id`;

/** Median time of CLAIMS claims, each rolled back; checks each claims one per subscription. */
async function timeClaims(ds: DataSource, claim: (tx: Tx) => Promise<unknown[]>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CLAIMS + 1; i++) {
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    try {
      const started = performance.now();
      const rows = await claim(runner.manager);
      const elapsed = performance.now() - started;
      if (rows.length !== Math.min(SLOTS, SUBSCRIPTIONS)) {
        throw new Error(`a claim took ${rows.length} deliveries`);
      }
      if (i > 0) times.push(elapsed); // the first warms the cache
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }
  return median(times);
}

/** Pending deliveries `from..to` of every subscription, due in the past. */
async function addBacklog(ds: DataSource, from: number, to: number): Promise<void> {
  await ds.query(
    `INSERT INTO ${DELIVERIES}
       (id, tenant_id, subscription_id, event_id, event_type, body, status, next_attempt_at,
        retry_until)
     SELECT gen_random_uuid(), s.tenant_id, s.id, 'evt-' || n || '-' || s.id,
            'order.ready_to_be_placed_in_pos', repeat('x', 600), 'pending',
            now() - n * interval '1 second', now() + interval '1 day'
     FROM generate_series($1::int, $2::int) AS n, "orders"."webhook_subscriptions" s`,
    [from, to],
  );
  await ds.query(`VACUUM ANALYZE ${DELIVERIES}`);
}

async function main(): Promise<void> {
  const box = new SecretBox(randomBytes(32));
  const database = await createTestDatabase('bench_webhook_claim');
  const ds = await openDatabase({
    url: database.url,
    schema: 'orders',
    entities: SUBSCRIPTION_ENTITIES,
    migrations: [...MESSAGING_MIGRATIONS, ...subscriptionMigrations(box)],
  });
  const config = new WebhooksConfig();
  const webhooks = new WebhookSender(config);
  const sender = new DeliverySender(
    new UnitOfWork(ds),
    webhooks,
    new RecordAttempt(config),
    config,
    box,
  );
  const claim = (tx: Tx) =>
    (sender as unknown as { claim(tx: Tx, limit: number): Promise<unknown[]> }).claim(tx, SLOTS);
  // TypeORM answers an UPDATE … RETURNING with [rows, count].
  const sortingClaim = async (tx: Tx) => {
    const [rows]: [unknown[], number] = await tx.query(SORTING_CLAIM, [
      30_000,
      '00000000-0000-4000-8000-000000000000',
      SLOTS,
    ]);
    return rows;
  };
  try {
    await ds.query(
      `INSERT INTO "orders"."webhook_subscriptions"
         (id, tenant_id, url, types, secret_sealed, status, created_by)
       SELECT gen_random_uuid(), 'tenant-' || n, 'https://hooks.example.com/' || n,
              ARRAY['order.ready_to_be_placed_in_pos'], 'sealed', 'active', 'bench'
       FROM generate_series(1, $1) AS n`,
      [SUBSCRIPTIONS],
    );
    console.log(
      `webhook claim, ${SUBSCRIPTIONS} subscriptions, ${SLOTS} slots, median of ${CLAIMS} claims\n`,
    );
    console.log('pending per subscription  pending in all  claim ms  sorting claim ms  ratio');
    let total = 0;
    for (const backlog of BACKLOGS) {
      await addBacklog(ds, total + 1, backlog);
      total = backlog;
      const ours = await timeClaims(ds, claim);
      const sorting = await timeClaims(ds, sortingClaim);
      console.log(
        `${String(backlog).padStart(23)}  ${String(backlog * SUBSCRIPTIONS).padStart(14)}  ${ours
          .toFixed(2)
          .padStart(
            8,
          )}  ${sorting.toFixed(2).padStart(16)}  ${(ours / sorting).toFixed(3).padStart(5)}`,
      );
    }
  } finally {
    await webhooks.onApplicationShutdown();
    await ds.destroy();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
