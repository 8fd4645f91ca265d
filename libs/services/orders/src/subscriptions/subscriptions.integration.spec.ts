import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCloudEvent, EventTypes, type CloudEvent } from '@comanda/contracts';
import { MESSAGING_MIGRATIONS, TimerService } from '@comanda/messaging';
import { verifySignature } from '@comanda/outbound';
import { openDatabase, UnitOfWork, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { DeliveryLog } from './delivery-log.usecase';
import { DeliverySender } from './delivery-sender';
import { DeliveryRetentionTimer } from './delivery-retention.timer';
import { subscriptionMigrations } from './index';
import { EnqueueDeliveries } from './enqueue-deliveries.usecase';
import { ManageSubscriptions } from './manage-subscriptions.usecase';
import { RecordAttempt } from './record-attempt.usecase';
import type { SubscribableEventType } from './subscribable-events';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookSender } from './webhook-sender';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook endpoint on 127.0.0.1 that answers what `answer` says and keeps what it got. */
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  answer: { status: number; delayMs?: number };
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const answer: { status: number; delayMs?: number } = { status: 200 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = () => response.writeHead(answer.status).end();
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function config(overrides: Partial<WebhooksConfig> = {}): WebhooksConfig {
  return Object.assign(new WebhooksConfig(), overrides);
}

function readyEvent(tenantId: string, orderId = 'order-1'): CloudEvent {
  return createCloudEvent('/comanda/orders', {
    type: EventTypes.OrderReadyToBePlacedInPos,
    tenantId,
    subject: orderId,
    data: { orderId, storeId: 'store-1', requestedReadyTime: '2026-01-01T12:00:00.000Z' },
  }) as CloudEvent;
}

describe('webhook subscriptions (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let timers: TimerService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const senders: WebhookSender[] = [];
  const box = new SecretBox(randomBytes(32));

  function kit(overrides: Partial<WebhooksConfig> = {}) {
    const settings = config({
      WEBHOOK_RETRY_BASE_MS: 1_000,
      WEBHOOK_TIMEOUT_MS: 500,
      ...overrides,
    });
    const sender = new WebhookSender(settings);
    senders.push(sender);
    const deliveries = new DeliverySender(
      new UnitOfWork(dataSource),
      sender,
      new RecordAttempt(settings),
      settings,
      box,
    );
    return {
      manage: new ManageSubscriptions(sender, settings, box),
      enqueue: new EnqueueDeliveries(settings),
      log: new DeliveryLog(settings),
      deliveries,
      /** Makes the delivery due now and lets the sender attempt it and record the outcome. */
      async attempt(deliveryId: string): Promise<void> {
        await dataSource.query(
          `UPDATE "orders"."webhook_deliveries" SET next_attempt_at = now()
           WHERE id = $1 AND status = 'pending'`,
          [deliveryId],
        );
        expect(await deliveries.sendDue()).toBe(1);
        await deliveries.idle();
      },
    };
  }
  const tx = <T>(work: (manager: Tx) => Promise<T>): Promise<T> => dataSource.transaction(work);

  /** A subscription of `tenantId` to one event type, delivered to the test receiver. */
  function subscribe(manage: ManageSubscriptions, tenantId: string, type: SubscribableEventType) {
    return tx((m) =>
      manage.create(m, { tenantId, clientId: 'c', url: receiver.url, types: [type] }),
    );
  }

  async function deliveriesOf(subscriptionId: string): Promise<WebhookDeliveryEntity[]> {
    return dataSource
      .getRepository(WebhookDeliveryEntity)
      .find({ where: { subscriptionId }, order: { createdAt: 'ASC' } });
  }

  beforeAll(async () => {
    db = await createTestDatabase('orders_webhooks');
    dataSource = await openDatabase({
      url: db.url,
      schema: 'orders',
      entities: [WebhookSubscriptionEntity, WebhookDeliveryEntity],
      migrations: [...MESSAGING_MIGRATIONS, ...subscriptionMigrations(box)],
    });
    timers = new TimerService({ service: 'orders', schema: 'orders' });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    // What a test left pending is not attempted in the next one.
    await dataSource.query(
      `UPDATE "orders"."webhook_deliveries" SET status = 'failed', next_attempt_at = NULL
       WHERE status = 'pending'`,
    );
    receiver.answer.status = 200;
    receiver.answer.delayMs = undefined;
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await Promise.all(senders.map((sender) => sender.onApplicationShutdown()));
    await receiver?.close();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('shows the secret only in the answer to the creation, and scopes subscriptions to their tenant', async () => {
    const { manage } = kit();
    const created = await tx((m) =>
      manage.create(m, {
        tenantId: 'tenant-a',
        clientId: 'pos-a',
        url: receiver.url,
        types: [EventTypes.OrderReadyToBePlacedInPos, EventTypes.OrderReadyToBePlacedInPos],
      }),
    );
    expect(created).toMatchObject({
      url: receiver.url,
      types: [EventTypes.OrderReadyToBePlacedInPos],
      status: 'active',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const read = await tx((m) => manage.get(m, 'tenant-a', created.id));
    expect(read).not.toHaveProperty('secret');
    expect(await tx((m) => manage.list(m, 'tenant-a'))).toContainEqual(read);
    await expect(tx((m) => manage.get(m, 'tenant-b', created.id))).rejects.toMatchObject({
      code: 'subscription.not_found',
    });
    expect(await tx((m) => manage.list(m, 'tenant-b'))).toEqual([]);
    await expect(tx((m) => manage.delete(m, 'tenant-b', created.id))).rejects.toMatchObject({
      code: 'subscription.not_found',
    });
    await tx((m) => manage.delete(m, 'tenant-a', created.id));
    await expect(tx((m) => manage.get(m, 'tenant-a', created.id))).rejects.toMatchObject({
      code: 'subscription.not_found',
    });
  });

  it('keeps the secret sealed in its table, bound to the subscription', async () => {
    const { manage } = kit();
    const created = await subscribe(manage, 'tenant-a', EventTypes.OrderPlaced);
    const [row] = (await dataSource.query(
      'SELECT * FROM "orders"."webhook_subscriptions" WHERE id = $1',
      [created.id],
    )) as Array<Record<string, unknown>>;
    expect(Object.keys(row)).not.toContain('secret');
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const sealed = row['secret_sealed'] as string;
    expect(box.open(sealed, `orders.webhook_subscriptions:${created.id}`)).toBe(created.secret);
    expect(() => box.open(sealed, `orders.webhook_subscriptions:${randomUUID()}`)).toThrow(
      /opens with neither/,
    );
    await tx((m) => manage.delete(m, 'tenant-a', created.id));
  });

  it('refuses a subscription beyond the per-tenant limit, also under concurrent creations', async () => {
    const { manage } = kit({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: 3 });
    const create = () => subscribe(manage, 'tenant-limit', EventTypes.OrderPlaced);
    const results = await Promise.allSettled([create(), create(), create(), create(), create()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: 'subscription.limit_reached',
      });
    }
  });

  it.each([
    ['http://example.com/hooks', 'url.not_https'],
    ['https://127.0.0.1/hooks', 'url.non_public_address'],
    ['https://127.1/hooks', 'url.non_public_address'],
    ['https://2130706433/hooks', 'url.non_public_address'],
    ['https://0x7f000001/hooks', 'url.non_public_address'],
    ['https://[::1]/hooks', 'url.non_public_address'],
    ['https://[::ffff:127.0.0.1]/hooks', 'url.non_public_address'],
    ['https://localhost/hooks', 'url.non_public_address'],
    ['https://10.1.2.3/hooks', 'url.non_public_address'],
    ['https://192.168.0.10/hooks', 'url.non_public_address'],
    ['https://169.254.169.254/latest/meta-data', 'url.non_public_address'],
    ['https://[fd00::1]/hooks', 'url.non_public_address'],
    ['https://user:pw@example.com/hooks', 'url.invalid'],
    ['ftp://example.com/hooks', 'url.invalid'],
  ])('refuses %s in a production deployment (%s)', async (url, code) => {
    const { manage } = kit({ COMANDA_ENVIRONMENT: 'production' });
    await expect(
      tx((m) =>
        manage.create(m, {
          tenantId: 'tenant-prod',
          clientId: 'c',
          url,
          types: [EventTypes.OrderPlaced],
        }),
      ),
    ).rejects.toMatchObject({ code, field: 'url' });
    expect(await tx((m) => manage.list(m, 'tenant-prod'))).toEqual([]);
  });

  it('records one delivery per matching subscription of the tenant, once per event, due at once', async () => {
    const { manage, enqueue } = kit();
    const ready = await subscribe(manage, 'tenant-e', EventTypes.OrderReadyToBePlacedInPos);
    const placedOnly = await subscribe(manage, 'tenant-e', EventTypes.OrderPlaced);
    const otherTenant = await subscribe(manage, 'tenant-f', EventTypes.OrderReadyToBePlacedInPos);
    const event = readyEvent('tenant-e');
    expect(await tx((m) => enqueue.execute(m, event))).toBe(1);
    expect(await tx((m) => enqueue.execute(m, event))).toBe(0);

    const [delivery] = await deliveriesOf(ready.id);
    expect(await deliveriesOf(ready.id)).toHaveLength(1);
    expect(delivery).toMatchObject({
      eventId: event.id,
      status: 'pending',
      attempts: 0,
      manual: false,
      lockedUntil: null,
    });
    expect(delivery!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(JSON.parse(delivery!.body)).toEqual(event);
    expect(await deliveriesOf(placedOnly.id)).toEqual([]);
    expect(await deliveriesOf(otherTenant.id)).toEqual([]);
  });

  it("posts a subscription's backlog one at a time and in order, beside another subscription's deliveries", async () => {
    const { manage, enqueue, deliveries } = kit();
    const backlogged = await subscribe(manage, 'tenant-g', EventTypes.OrderReadyToBePlacedInPos);
    const other = await subscribe(manage, 'tenant-h', EventTypes.OrderReadyToBePlacedInPos);
    for (const orderId of ['order-g1', 'order-g2', 'order-g3']) {
      await tx((m) => enqueue.execute(m, readyEvent('tenant-g', orderId)));
    }
    await tx((m) => enqueue.execute(m, readyEvent('tenant-h', 'order-h1')));

    // One claim takes the earliest of each subscription, never two of the same one.
    expect(await deliveries.sendDue()).toBe(2);
    await deliveries.idle();
    expect(await deliveries.sendDue()).toBe(1);
    await deliveries.idle();
    expect(await deliveries.sendDue()).toBe(1);
    await deliveries.idle();
    expect(await deliveries.sendDue()).toBe(0);

    const subjectsOf = (tenantId: string) =>
      receiver.received
        .map(({ body }) => JSON.parse(body) as CloudEvent)
        .filter((event) => event.tenantid === tenantId)
        .map((event) => event.subject);
    expect(subjectsOf('tenant-g')).toEqual(['order-g1', 'order-g2', 'order-g3']);
    expect(subjectsOf('tenant-h')).toEqual(['order-h1']);
    for (const subscription of [backlogged, other]) {
      expect((await deliveriesOf(subscription.id)).map((d) => d.status)).not.toContain('pending');
    }
  });

  it('posts the CloudEvent signed with the secret, retries a 500 later with back-off, and records both attempts', async () => {
    const { manage, enqueue, attempt, log } = kit();
    const subscription = await subscribe(manage, 'tenant-r', EventTypes.OrderReadyToBePlacedInPos);
    const event = readyEvent('tenant-r');
    await tx((m) => enqueue.execute(m, event));
    const [delivery] = await deliveriesOf(subscription.id);

    receiver.answer.status = 500;
    const before = Date.now();
    await attempt(delivery!.id);
    const afterFirst = (await deliveriesOf(subscription.id))[0]!;
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1, lockedUntil: null });
    expect(afterFirst.attemptLog).toEqual([
      expect.objectContaining({ number: 1, statusCode: 500, error: 'answered 500' }),
    ]);
    expect(afterFirst.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + 1_000);

    receiver.answer.status = 204;
    await attempt(delivery!.id);
    const [done] = await tx((m) =>
      log.list(m, 'tenant-r', subscription.id, { limit: 20, offset: 0 }),
    );
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, nextAttemptAt: null });
    expect(done!.attemptLog[1]).toMatchObject({ number: 2, statusCode: 204 });

    expect(receiver.received).toHaveLength(2);
    for (const { headers, body } of receiver.received) {
      expect(body).toBe(JSON.stringify(event));
      expect(headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
      expect(headers['comanda-delivery-id']).toBe(delivery!.id);
      expect(headers['comanda-event-id']).toBe(event.id);
      expect(headers['comanda-event-type']).toBe(event.type);
      expect(
        verifySignature(headers['comanda-signature'] as string, body, subscription.secret),
      ).toEqual({ valid: true });
      expect(verifySignature(headers['comanda-signature'] as string, body, 'whsec_other')).toEqual({
        valid: false,
        reason: 'mismatch',
      });
    }
  });

  it('counts an endpoint that does not answer within the timeout as a failed attempt', async () => {
    const { manage, enqueue, attempt } = kit({ WEBHOOK_TIMEOUT_MS: 200 });
    const subscription = await subscribe(manage, 'tenant-t', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-t')));
    const [delivery] = await deliveriesOf(subscription.id);
    receiver.answer.delayMs = 2_000;
    await attempt(delivery!.id);
    const [after] = await deliveriesOf(subscription.id);
    expect(after).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after!.attemptLog[0]).toMatchObject({ error: 'no answer within the timeout' });
    expect(after!.attemptLog[0]).not.toHaveProperty('statusCode');
  });

  it('gives a delivery up when its next attempt would fall after the retry window', async () => {
    const { manage, enqueue, attempt } = kit({
      WEBHOOK_RETRY_BASE_MS: 60_000,
      WEBHOOK_RETRY_WINDOW_MS: 30_000,
    });
    const subscription = await subscribe(manage, 'tenant-w', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-w')));
    const [delivery] = await deliveriesOf(subscription.id);
    receiver.answer.status = 503;
    await attempt(delivery!.id);
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      nextAttemptAt: null,
      lockedUntil: null,
    });
  });

  it('pauses a subscription after repeated failures, logs new events as paused, and resumes it on a successful redelivery', async () => {
    const { manage, enqueue, attempt, log } = kit({ WEBHOOK_PAUSE_AFTER_FAILURES: 2 });
    const subscription = await subscribe(manage, 'tenant-p', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-p', 'order-1')));
    const [first] = await deliveriesOf(subscription.id);
    receiver.answer.status = 500;
    await attempt(first!.id);
    await attempt(first!.id);
    expect(await tx((m) => manage.get(m, 'tenant-p', subscription.id))).toMatchObject({
      status: 'paused',
      consecutiveFailures: 2,
      pauseReason: expect.stringContaining('answered 500'),
    });
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'paused',
      attempts: 2,
    });

    await tx((m) => enqueue.execute(m, readyEvent('tenant-p', 'order-2')));
    const second = (await deliveriesOf(subscription.id))[1]!;
    expect(second).toMatchObject({ status: 'paused', attempts: 0, nextAttemptAt: null });

    receiver.answer.status = 200;
    const redelivered = await tx((m) => log.redeliver(m, 'tenant-p', subscription.id, first!.id));
    expect(redelivered).toMatchObject({ status: 'pending' });
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({ manual: true });
    await attempt(first!.id);
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      manual: false,
    });
    expect(await tx((m) => manage.get(m, 'tenant-p', subscription.id))).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
      pausedAt: null,
    });
    await expect(
      tx((m) => log.redeliver(m, 'tenant-other', subscription.id, first!.id)),
    ).rejects.toMatchObject({ code: 'subscription.not_found' });
    await expect(
      tx((m) => log.redeliver(m, 'tenant-p', subscription.id, second.subscriptionId)),
    ).rejects.toMatchObject({ code: 'subscription.delivery_not_found' });
  });

  it('stops a pending delivery of a paused subscription at its next attempt, without calling the endpoint', async () => {
    const { manage, enqueue, attempt } = kit();
    const subscription = await subscribe(manage, 'tenant-ps', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-ps')));
    const [delivery] = await deliveriesOf(subscription.id);
    await dataSource
      .getRepository(WebhookSubscriptionEntity)
      .update({ id: subscription.id }, { status: 'paused' });
    await attempt(delivery!.id);
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'paused',
      attempts: 0,
      nextAttemptAt: null,
      lockedUntil: null,
    });
    expect(receiver.received).toEqual([]);
  });

  it('attempts a subscription’s deliveries one at a time, beside other subscriptions’', async () => {
    const { manage, enqueue, deliveries } = kit();
    const busy = await subscribe(manage, 'tenant-one', EventTypes.OrderReadyToBePlacedInPos);
    const other = await subscribe(manage, 'tenant-two', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-one', 'order-1')));
    await tx((m) => enqueue.execute(m, readyEvent('tenant-one', 'order-2')));
    await tx((m) => enqueue.execute(m, readyEvent('tenant-two', 'order-3')));
    receiver.answer.delayMs = 300;
    expect(await deliveries.sendDue()).toBe(2);
    expect(await deliveries.sendDue()).toBe(0);
    await deliveries.idle();
    expect(await deliveries.sendDue()).toBe(1);
    await deliveries.idle();
    const attempted = [...(await deliveriesOf(busy.id)), ...(await deliveriesOf(other.id))];
    expect(attempted.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(receiver.received).toHaveLength(3);
  });

  it('posts again, with the same ids, when the process died between the post and its record', async () => {
    const settings = config({ WEBHOOK_TIMEOUT_MS: 500 });
    const sender = new WebhookSender(settings);
    senders.push(sender);
    const dying = new RecordAttempt(settings);
    dying.execute = () => Promise.reject(new Error('the process ended'));
    const crashed = new DeliverySender(new UnitOfWork(dataSource), sender, dying, settings, box);
    const { manage, enqueue, deliveries } = kit();
    const subscription = await subscribe(manage, 'tenant-crash', EventTypes.OrderPlaced);
    const event = { ...readyEvent('tenant-crash'), type: EventTypes.OrderPlaced } as CloudEvent;
    await tx((m) => enqueue.execute(m, event));
    const [delivery] = await deliveriesOf(subscription.id);

    expect(await crashed.sendDue()).toBe(1);
    await crashed.idle();
    expect(receiver.received).toHaveLength(1);
    const leased = (await deliveriesOf(subscription.id))[0]!;
    expect(leased).toMatchObject({ status: 'pending', attempts: 0 });
    expect(leased.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
    // Nobody else takes it while the lease runs; once it has run out, the sender does.
    expect(await deliveries.sendDue()).toBe(0);
    await dataSource.query(
      `UPDATE "orders"."webhook_deliveries" SET locked_until = now() - interval '1 second' WHERE id = $1`,
      [delivery!.id],
    );
    expect(await deliveries.sendDue()).toBe(1);
    await deliveries.idle();
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lockedUntil: null,
    });
    expect(receiver.received).toHaveLength(2);
    const [lost, again] = receiver.received;
    expect(again!.body).toBe(lost!.body);
    expect(again!.headers['comanda-delivery-id']).toBe(lost!.headers['comanda-delivery-id']);
    expect(again!.headers['comanda-event-id']).toBe(event.id);
  });

  it('sends a delivery redelivered during an attempt again right after that attempt', async () => {
    const { manage, enqueue, deliveries, log } = kit();
    const subscription = await subscribe(manage, 'tenant-rd', EventTypes.OrderReadyToBePlacedInPos);
    await tx((m) => enqueue.execute(m, readyEvent('tenant-rd')));
    const [delivery] = await deliveriesOf(subscription.id);
    receiver.answer.status = 500;
    receiver.answer.delayMs = 300;
    expect(await deliveries.sendDue()).toBe(1);
    await waitFor('the attempt under way', () => receiver.received.length === 1);
    await tx((m) => log.redeliver(m, 'tenant-rd', subscription.id, delivery!.id));
    // No second post while the first is under way.
    expect(await deliveries.sendDue()).toBe(0);
    await deliveries.idle();
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      manual: true,
      lockedUntil: null,
    });
    receiver.answer.status = 200;
    receiver.answer.delayMs = undefined;
    expect(await deliveries.sendDue()).toBe(1);
    await deliveries.idle();
    expect((await deliveriesOf(subscription.id))[0]).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      manual: false,
    });
  });

  it('records nothing for an attempt whose subscription was deleted while it was under way', async () => {
    const { manage, enqueue, deliveries } = kit();
    const subscription = await subscribe(
      manage,
      'tenant-del',
      EventTypes.OrderReadyToBePlacedInPos,
    );
    await tx((m) => enqueue.execute(m, readyEvent('tenant-del')));
    receiver.answer.delayMs = 300;
    expect(await deliveries.sendDue()).toBe(1);
    await waitFor('the attempt under way', () => receiver.received.length === 1);
    await tx((m) => manage.delete(m, 'tenant-del', subscription.id));
    await deliveries.idle();
    expect(await deliveriesOf(subscription.id)).toEqual([]);
  });

  it('deletes finished deliveries past the retention, and never a pending one', async () => {
    const { manage, enqueue } = kit();
    const retention = new DeliveryRetentionTimer(
      new UnitOfWork(dataSource),
      timers,
      config({ WEBHOOK_DELIVERY_RETENTION_MS: 3_600_000 }),
    );
    const subscription = await subscribe(
      manage,
      'tenant-old',
      EventTypes.OrderReadyToBePlacedInPos,
    );
    await tx((m) => enqueue.execute(m, readyEvent('tenant-old', 'order-1')));
    await tx((m) => enqueue.execute(m, readyEvent('tenant-old', 'order-2')));
    const [done, pending] = await deliveriesOf(subscription.id);
    await dataSource
      .getRepository(WebhookDeliveryEntity)
      .update({ id: done!.id }, { status: 'succeeded' });
    await dataSource.query(
      `UPDATE "orders"."webhook_deliveries" SET created_at = now() - interval '2 hours' WHERE subscription_id = $1`,
      [subscription.id],
    );
    expect(await tx((m) => retention.purge(m, new Date()))).toBe(1);
    expect((await deliveriesOf(subscription.id)).map((d) => d.id)).toEqual([pending!.id]);
  });

  it('checks the address again at connection time in production: a host that now resolves to loopback is refused, not called', async () => {
    const { enqueue, attempt } = kit({ COMANDA_ENVIRONMENT: 'production' });
    // Saved while the host was public; it resolves to 127.0.0.1 now (DNS rebinding).
    const subscription = await subscribe(
      kit().manage,
      'tenant-rebind',
      EventTypes.OrderReadyToBePlacedInPos,
    );
    const rebound = receiver.url.replace('http://127.0.0.1', 'https://localhost');
    await dataSource
      .getRepository(WebhookSubscriptionEntity)
      .update({ id: subscription.id }, { url: rebound });
    await tx((m) => enqueue.execute(m, readyEvent('tenant-rebind')));
    const [delivery] = await deliveriesOf(subscription.id);
    await attempt(delivery!.id);
    const [after] = await deliveriesOf(subscription.id);
    expect(after).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after!.attemptLog[0]!.error).toMatch(/^refused: .*loopback/);
    expect(receiver.received).toEqual([]);
  });
});
