import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCloudEvent, EventTypes, type CloudEvent } from '@comanda/contracts';
import {
  MESSAGING_MIGRATIONS,
  TimerHandlerRegistry,
  TimerPoller,
  TimerService,
} from '@comanda/messaging';
import { openDatabase, UnitOfWork, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { DeliverySender } from './delivery-sender';
import { EnqueueDeliveries } from './enqueue-deliveries.usecase';
import { subscriptionMigrations } from './index';
import { ManageSubscriptions } from './manage-subscriptions.usecase';
import { RecordAttempt } from './record-attempt.usecase';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookSender } from './webhook-sender';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

const TIMEOUT_MS = 3_000;
const UNRELATED_TIMER = 'test-unrelated';

/** An endpoint on 127.0.0.1; `hang` keeps every request open without an answer. */
async function startEndpoint(hang: boolean) {
  const arrivals: number[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      arrivals.push(Date.now());
      if (!hang) response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readyEvent(tenantId: string, orderId: string): CloudEvent {
  return createCloudEvent('/comanda/orders', {
    type: EventTypes.OrderReadyToBePlacedInPos,
    tenantId,
    subject: orderId,
    data: { orderId, storeId: 'store-1', requestedReadyTime: '2026-01-01T12:00:00.000Z' },
  }) as CloudEvent;
}

/**
 * A tenant whose webhook URLs never answer must cost the other tenants nothing: neither
 * their deliveries, nor the service's other timers, nor its database connections.
 */
describe('webhook deliveries to endpoints that never answer (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let hanging: Awaited<ReturnType<typeof startEndpoint>>;
  let healthy: Awaited<ReturnType<typeof startEndpoint>>;
  let poller: TimerPoller;
  let sender: WebhookSender;
  let deliveries: DeliverySender;
  const box = new SecretBox(randomBytes(32));
  const unrelatedFiredAt: number[] = [];
  const tx = <T>(work: (manager: Tx) => Promise<T>): Promise<T> => dataSource.transaction(work);

  beforeAll(async () => {
    db = await createTestDatabase('orders_webhooks_hang');
    dataSource = await openDatabase({
      url: db.url,
      schema: 'orders',
      entities: [WebhookSubscriptionEntity, WebhookDeliveryEntity],
      migrations: [...MESSAGING_MIGRATIONS, ...subscriptionMigrations(box)],
    });
    hanging = await startEndpoint(true);
    healthy = await startEndpoint(false);
  });
  afterAll(async () => {
    await poller?.stop();
    await deliveries?.beforeApplicationShutdown();
    await sender?.onApplicationShutdown();
    await hanging?.close();
    await healthy?.close();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('delays neither another tenant’s delivery nor the service’s other timers, and holds no transaction open while it waits', async () => {
    const settings = Object.assign(new WebhooksConfig(), {
      WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
      WEBHOOK_SEND_POLL_MS: 100,
      WEBHOOK_SEND_CONCURRENCY: 16,
    });
    const timers = new TimerService({ service: 'orders', schema: 'orders' });
    sender = new WebhookSender(settings);
    const manage = new ManageSubscriptions(sender, settings, box);
    const enqueue = new EnqueueDeliveries(settings);
    deliveries = new DeliverySender(
      new UnitOfWork(dataSource),
      sender,
      new RecordAttempt(settings),
      settings,
      box,
    );
    const registry = new TimerHandlerRegistry({} as never, {} as never, {} as never);
    // Stands for the placement and pick-up timeouts and the consumers' retries.
    registry.register(UNRELATED_TIMER, async () => {
      unrelatedFiredAt.push(Date.now());
    });
    poller = new TimerPoller(dataSource, registry, {
      service: 'orders',
      schema: 'orders',
      timerPollMs: 100,
    });

    // One tenant subscribes six URLs that never answer (the pool has 10 connections), and
    // five events are waiting for each: more deliveries than sending slots.
    for (let i = 0; i < 6; i += 1) {
      await tx((m) =>
        manage.create(m, {
          tenantId: 'tenant-hang',
          clientId: 'c',
          url: `${hanging.url}/${i}`,
          types: [EventTypes.OrderReadyToBePlacedInPos],
        }),
      );
    }
    await tx((m) =>
      manage.create(m, {
        tenantId: 'tenant-ok',
        clientId: 'c',
        url: healthy.url,
        types: [EventTypes.OrderReadyToBePlacedInPos],
      }),
    );

    for (let i = 0; i < 5; i += 1) {
      await tx((m) => enqueue.execute(m, readyEvent('tenant-hang', `order-h${i}`)));
    }
    poller.start();
    deliveries.onApplicationBootstrap();
    await waitFor('the hanging endpoint called six times', () => hanging.arrivals.length >= 6);

    // While those attempts wait, another tenant's order is ready and an unrelated timer is due.
    const dueAt = Date.now();
    await tx(async (m) => {
      await enqueue.execute(m, readyEvent('tenant-ok', 'order-ok'));
      await timers.schedule(m, {
        name: UNRELATED_TIMER,
        key: 'k',
        fireAt: new Date(),
        payload: {},
      });
    });
    // Sampled for a second while the endpoint hangs: transactions open for over 300 ms.
    let openTransactions = 0;
    for (const until = Date.now() + 1_000; Date.now() < until;) {
      const [sample] = (await dataSource.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND xact_start < now() - interval '300 milliseconds'`,
      )) as Array<{ n: number }>;
      openTransactions = Math.max(openTransactions, sample?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    await waitFor('the other tenant’s delivery', () => healthy.arrivals.length >= 1, {
      timeoutMs: 3 * TIMEOUT_MS,
    });
    await waitFor('the unrelated timer', () => unrelatedFiredAt.length >= 1, {
      timeoutMs: 3 * TIMEOUT_MS,
    });
    const deliveryDelayMs = (healthy.arrivals[0] ?? Infinity) - dueAt;
    const timerDelayMs = (unrelatedFiredAt[0] ?? Infinity) - dueAt;
    expect(openTransactions).toBe(0);
    // One attempt in flight per subscription: the rest of its deliveries wait their turn.
    expect(hanging.arrivals).toHaveLength(6);
    // Each hanging attempt is recorded as failed once its timeout passes, and retried later.
    await waitFor(
      'six attempts recorded as timed out',
      async () => {
        const [row] = (await dataSource.query(
          `SELECT count(*)::int AS n FROM "orders"."webhook_deliveries"
           WHERE tenant_id = 'tenant-hang' AND status = 'pending' AND attempts = 1
             AND locked_until IS NULL AND next_attempt_at > now()
             AND attempt_log -> 0 ->> 'error' = 'no answer within the timeout'`,
        )) as Array<{ n: number }>;
        return (row?.n ?? 0) >= 6;
      },
      { timeoutMs: 3 * TIMEOUT_MS },
    );
    expect(deliveryDelayMs).toBeLessThan(1_500);
    expect(timerDelayMs).toBeLessThan(1_500);
  }, 60_000);
});
