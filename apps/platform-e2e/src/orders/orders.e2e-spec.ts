import { randomUUID } from 'node:crypto';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import {
  createCloudEvent,
  type CloudEvent,
  type EventType,
  type PaymentOperationType,
} from '@comanda/contracts';
import { RabbitMqBus } from '@comanda/messaging';
import {
  createTestBroker,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
} from '@comanda/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  filledBasket,
  GUEST,
  ITEM_MAPPING,
  STORE_MAPPING,
  ordersTenant,
  placeBasket,
  placedReport,
  seedStore,
  type OrdersTenant,
} from './orders-api';

type Order = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Short enough for the timeout tests, long enough that a POS answering at once is never
// overtaken by the timer on a CI machine that stalls for seconds under load.
const PLACEMENT_TIMEOUT_MS = 8000;

describe('orders through the gateway', () => {
  let broker: TestBroker;
  let platform: TestPlatform;
  let connection: ChannelModel;
  let channel: Channel;
  let publisher: RabbitMqBus;
  let tenant: OrdersTenant;
  let storeId: string;
  const readyEvents: CloudEvent[] = [];
  const allEvents: CloudEvent[] = [];
  const queues: string[] = [];

  const placement = ['orders:placement'] as const;
  const reader = ['orders:read'] as const;

  async function observe(routingKey: string, sink: CloudEvent[]): Promise<void> {
    const { queue } = await channel.assertQueue('', { exclusive: true });
    queues.push(queue);
    await channel.bindQueue(queue, broker.exchange, routingKey);
    // Acked once recorded, as a real POS adapter would (its own exclusive queue).
    await channel.consume(queue, (message) => {
      if (!message) return;
      sink.push(JSON.parse(message.content.toString()) as CloudEvent);
      channel.ack(message);
    });
  }

  async function order(orderId: string, permissions: string[] = [...reader]): Promise<Order> {
    const response = await tenant.as<Order>(permissions as never, 'GET', `/orders/${orderId}`);
    expect(response.status).toBe(200);
    return response.json;
  }

  function eventsOf(type: EventType, orderId: string): CloudEvent[] {
    return allEvents.filter((event) => event.type === type && event.subject === orderId);
  }

  async function publish<T extends EventType>(type: T, data: CloudEvent<T>['data']): Promise<void> {
    await publisher.publish(
      createCloudEvent('/comanda/payments', {
        type,
        tenantId: tenant.tenantId,
        subject: 'p',
        data,
      }),
    );
  }

  beforeAll(async () => {
    broker = await createTestBroker('e2e-orders');
    platform = await startTestPlatform('e2e_orders', {
      broker,
      // This suite plays the payments service's part: it publishes the payment events itself.
      without: ['payments'],
      env: { PLACEMENT_TIMEOUT_MS: String(PLACEMENT_TIMEOUT_MS) },
    });
    connection = await connect(broker.url);
    channel = await connection.createChannel();
    tenant = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
    // The way a POS adapter subscribes: its own binding on the tenant's routing key.
    await observe(`order.ready_to_be_placed_in_pos.${tenant.tenantId}`, readyEvents);
    await observe('#', allEvents);
    publisher = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      connectionName: 'orders-e2e-payments',
    });
    storeId = await seedStore(tenant, { paymentMerchantId: 'merchant-1' });
  }, 120_000);

  afterAll(async () => {
    await publisher?.close();
    await connection?.close();
    await platform?.close();
    if (broker) await disposePlatformBroker(broker);
  });

  describe('checkout', () => {
    it('closes an order without payment at once and announces it once on the tenant routing key, without personal data', async () => {
      const { orderId, status } = await placeBasket(tenant, storeId, {
        requestedReadyTime: '2026-11-23T19:00:00Z',
      });
      expect(status).toBe('ready');
      const [event] = await waitFor('the ready event', () => {
        const found = readyEvents.filter((e) => e.subject === orderId);
        return found.length > 0 ? found : undefined;
      });
      expect(event).toMatchObject({
        type: 'order.ready_to_be_placed_in_pos',
        tenantid: tenant.tenantId,
        data: { orderId, storeId, requestedReadyTime: '2026-11-23T19:00:00Z' },
      });
      expect(Object.keys(event.data).sort()).toEqual(['orderId', 'requestedReadyTime', 'storeId']);
      const checkedOut = await waitFor(
        'basket.checked_out',
        () => eventsOf('basket.checked_out', orderId)[0],
      );
      expect(checkedOut.data).not.toHaveProperty('payment');
      const text = JSON.stringify(allEvents.filter((e) => e.subject === orderId));
      for (const personal of [GUEST.name, GUEST.email, GUEST.phone])
        expect(text).not.toContain(personal);
      expect(readyEvents.filter((e) => e.subject === orderId)).toHaveLength(1);
    });

    it('makes one order of a repeated checkout with one Idempotency-Key and answers the repeat deep-equal', async () => {
      const basket = await tenant.as<{ id: string }>(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'pickup',
        guest: GUEST,
      });
      await tenant.as(['storefront'], 'POST', `/baskets/${basket.json.id}/items`, {
        menuItemId: 'fries',
        quantity: 2,
      });
      const key = { 'idempotency-key': randomUUID() };
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          tenant.as(['storefront'], 'POST', `/baskets/${basket.json.id}/checkout`, {}, key),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
      expect(answers[1].json).toEqual(answers[0].json);
      expect(answers[2].json).toEqual(answers[0].json);
      const other = await tenant.as<{ id: string }>(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'pickup',
        guest: GUEST,
      });
      await tenant.as(['storefront'], 'POST', `/baskets/${other.json.id}/items`, {
        menuItemId: 'fries',
        quantity: 1,
      });
      const reused = await tenant.as(
        ['storefront'],
        'POST',
        `/baskets/${other.json.id}/checkout`,
        {},
        key,
      );
      expect(reused.status).toBe(409);
      expect(reused.json).toMatchObject({ code: 'checkout.idempotency_key_reused' });
      const listed = await tenant.as<{ items: Order[] }>([...reader], 'GET', '/orders?limit=100');
      expect(listed.json.items.filter((o) => o.basketId === basket.json.id)).toHaveLength(1);
    });

    it('refuses a checkout body with members (a checkout carries none), leaving the basket open', async () => {
      const path = `/baskets/${await filledBasket(tenant, storeId)}/checkout`;
      const refused = await tenant.as(['storefront'], 'POST', path, {
        payment: { merchantId: 'm', paymentMethod: 'card' },
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        code: 'request.invalid',
        errors: [expect.objectContaining({ path: 'payment' })],
      });
      const checkedOut = await tenant.as(['storefront'], 'POST', path, {});
      expect(checkedOut.status).toBe(202);
    });

    it('refuses a menu item typed as a charge item, and a menu item twice', async () => {
      const item = { id: 'x', type: 'deliveryFee', title: 'X', price: 1, mappingDetails: {} };
      const typed = await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}/menu`, {
        items: [item],
      });
      expect(typed.status).toBe(400);
      const twice = await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}/menu`, {
        items: [
          { ...item, type: 'menuItem' },
          { ...item, type: 'menuItem' },
        ],
      });
      expect(twice.status).toBe(400);
      expect(twice.json).toMatchObject({ code: 'menu.duplicate_item' });
    });

    it('requires an address for delivery and refuses a merchant other than the store’s', async () => {
      const noAddress = await tenant.as(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'delivery',
        guest: { name: 'A', email: 'a@example.com', phone: '1' },
      });
      expect(noAddress.status).toBe(400);
      const wrongMerchant = await tenant.as(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'pickup',
        guest: GUEST,
        payment: { merchantId: 'someone-else', paymentMethod: 'card' },
      });
      expect(wrongMerchant.status).toBe(409);
      expect(wrongMerchant.json).toMatchObject({ code: 'checkout.merchant_mismatch' });
      for (const requestedReadyTime of ['2030-01-01', '2030-W01-1', '2030-01-01T12:00:00']) {
        const notAnInstant = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
          storeId,
          fulfillment: 'pickup',
          guest: GUEST,
          requestedReadyTime,
        });
        expect(notAnInstant.status).toBe(400);
        expect(notAnInstant.json.errors[0].path).toBe('requestedReadyTime');
      }
      // An array where an object belongs, even one holding the right object, is a 400.
      for (const [path, value] of [
        ['guest', []],
        ['guest', [GUEST]],
        ['payment', []],
        ['payment', [{ merchantId: 'someone-else', paymentMethod: 'card' }]],
      ] as const) {
        const array = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
          storeId,
          fulfillment: 'pickup',
          guest: GUEST,
          [path]: value,
        });
        expect([array.status, array.json.code]).toEqual([400, 'request.invalid']);
        expect(array.json.errors[0].path).toBe(path);
      }
    });
  });

  describe('placement state table', () => {
    it('closed → pos/placed: finalized as placed, report recorded, order.placed emitted; then 405 on both callbacks, kept in the timeline', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const start = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        {
          placeOrderSessionId: randomUUID(),
        },
      );
      expect(start.status).toBe(200);
      const refs = { posOrderId: `pos-${randomUUID()}` };
      const placed = await tenant.as(
        [...placement],
        'POST',
        `/orders/${orderId}/pos/placed`,
        placedReport(refs),
      );
      expect(placed.status).toBe(200);
      expect((await order(orderId)).status).toBe('placed');
      await waitFor('order.placed', () => eventsOf('order.placed', orderId)[0]);
      expect(eventsOf('order.placed', orderId)[0].data).toMatchObject({
        orderId,
        orderName: 'Check 42',
        orderRefs: refs,
      });

      const again = await tenant.as(
        [...placement],
        'POST',
        `/orders/${orderId}/pos/placed`,
        placedReport(),
      );
      const failed = await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/failed`, {
        code: 'x',
        message: 'y',
      });
      expect([again.status, failed.status]).toEqual([405, 405]);
      expect(again.json).toMatchObject({ code: 'order.already_finalized' });
      expect(again.headers.get('allow')).toBe('');
      const after = await order(orderId);
      expect(after.status).toBe('placed');
      expect(after.timeline.filter((e: Order) => e.type === 'callback_refused')).toHaveLength(2);

      // Finalized answers 405 whatever the body; an open order answers 400 to the same bodies.
      const { orderId: open } = await placeBasket(tenant, storeId);
      for (const [callback, body] of [
        ['pos/placed', { orderName: '' }],
        ['pos/placed', {}],
        ['pos/failed', {}],
        ['pos/failed', { code: 7 }],
        // Text PostgreSQL cannot store: a NUL, a lone surrogate.
        ['pos/failed', { code: 'a\u0000', message: 'm' }],
        ['pos/placed', { orderName: '\ud800' }],
      ] as const) {
        const late = await tenant.as(
          [...placement],
          'POST',
          `/orders/${orderId}/${callback}`,
          body,
        );
        expect([late.status, late.json.code]).toEqual([405, 'order.already_finalized']);
        const early = await tenant.as([...placement], 'POST', `/orders/${open}/${callback}`, body);
        expect([early.status, early.json.code]).toEqual([400, 'request.invalid']);
      }
      // Also a body that is not JSON at all (malformed, or empty under a JSON content type).
      const client = await tenant.client([...placement]);
      const raw = async (id: string, callback: string, body: string) => {
        const response = await fetch(`${platform.baseUrl}/orders/${id}/${callback}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await client.token()}`,
            'x-api-version': '0',
            'content-type': 'application/json',
          },
          body,
        });
        const answer = (await response.json()) as { code: string };
        return [response.status, answer.code];
      };
      for (const [callback, body] of [
        ['pos/placed', '{"orderName": '],
        ['pos/failed', ''],
      ]) {
        expect(await raw(orderId, callback, body)).toEqual([405, 'order.already_finalized']);
        expect(await raw(open, callback, body)).toEqual([400, 'request.malformed_json']);
      }
      expect((await order(open)).status).toBe('ready');
    });

    it('keeps one counted timeline entry for a refused callback a POS repeats, not its bodies', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const sessionId = randomUUID();
      for (let i = 0; i < 3; i += 1) {
        const start = await tenant.as(
          [...placement],
          'POST',
          `/orders/${orderId}/place-order-session/start`,
          // The same UUID, in upper case the last time: the same session.
          { placeOrderSessionId: i === 2 ? sessionId.toUpperCase() : sessionId },
        );
        expect(start.status).toBe(200);
      }
      expect(
        (await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/placed`, placedReport()))
          .status,
      ).toBe(200);
      const bulky = { ...placedReport(), extensions: { note: 'x'.repeat(60_000) } };
      for (let i = 0; i < 30; i += 1) {
        const again = await tenant.as(
          [...placement],
          'POST',
          `/orders/${orderId}/pos/placed`,
          bulky,
        );
        expect(again.status).toBe(405);
      }
      const read = await tenant.as<Order>(['orders:read'], 'GET', `/orders/${orderId}`);
      expect(read.text.length).toBeLessThan(20_000);
      const refused = read.json.timeline.filter((e: Order) => e.type === 'callback_refused');
      expect(refused).toHaveLength(1);
      expect(refused[0].detail).toMatchObject({ callback: 'pos/placed', repeats: 30 });
      const types = read.json.timeline.map((e: Order) => e.type);
      expect(types.filter((type: string) => type === 'session_started')).toHaveLength(1);
      expect(types).not.toContain('session_resumed_with_other_id');
      expect(
        read.json.timeline.find((e: Order) => e.type === 'session_resumed').detail,
      ).toMatchObject({
        placeOrderSessionId: sessionId,
        repeats: 2,
      });
    });

    it('closed → pos/failed: finalized as failed with the POS code, order.placement_failed (cause pos); then 405 on both callbacks', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      await tenant.as([...placement], 'POST', `/orders/${orderId}/place-order-session/start`, {
        placeOrderSessionId: randomUUID(),
      });
      const failed = await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/failed`, {
        code: 'pos.menu.item_unavailable',
        message: 'Burger is sold out',
        data: { plu: '000123' },
      });
      expect(failed.status).toBe(200);
      const read = await order(orderId);
      expect(read.status).toBe('failed');
      expect(read.failure).toMatchObject({
        code: 'pos.menu.item_unavailable',
        message: 'Burger is sold out',
        data: { plu: '000123' },
      });
      const event = await waitFor(
        'order.placement_failed',
        () => eventsOf('order.placement_failed', orderId)[0],
      );
      expect(event.data).toMatchObject({ cause: 'pos', code: 'pos.menu.item_unavailable' });
      for (const path of ['pos/placed', 'pos/failed']) {
        const body = path === 'pos/placed' ? placedReport() : { code: 'x', message: 'y' };
        expect(
          (await tenant.as([...placement], 'POST', `/orders/${orderId}/${path}`, body)).status,
        ).toBe(405);
      }
    });

    it('closed → session timeout: marked failed (placement.timeout) and finalized once; then 405 on both callbacks', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const session = randomUUID();
      const first = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: session },
      );
      const repeat = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: session },
      );
      expect(repeat.status).toBe(200);
      expect(repeat.json.placement.expiresAt).toBe(first.json.placement.expiresAt);
      const failed = await waitFor(
        'the placement timeout',
        async () => {
          const read = await order(orderId);
          return read.status === 'failed' ? read : undefined;
        },
        { timeoutMs: PLACEMENT_TIMEOUT_MS + 20_000 },
      );
      expect(failed.failure.code).toBe('placement.timeout');
      expect(eventsOf('order.placement_started', orderId)).toHaveLength(1);
      expect(eventsOf('order.placement_started', orderId)[0].data).toMatchObject({
        placeOrderSessionId: session,
        expiresAt: first.json.placement.expiresAt,
      });
      expect(failed.timeline.filter((e: Order) => e.type === 'placement_timeout')).toHaveLength(1);
      const event = await waitFor(
        'order.placement_failed',
        () => eventsOf('order.placement_failed', orderId)[0],
      );
      expect(event.data).toMatchObject({ cause: 'timeout', code: 'placement.timeout' });
      expect(
        (await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/placed`, placedReport()))
          .status,
      ).toBe(405);
      expect(
        (
          await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/failed`, {
            code: 'a',
            message: 'b',
          })
        ).status,
      ).toBe(405);
    });

    it('pos/placed racing the timeout ends in exactly one terminal state, answered 200 or 405', async () => {
      // Several orders at once, each called back right at its deadline, to hit the window.
      const orders = await Promise.all([1, 2, 3, 4].map(() => placeBasket(tenant, storeId)));
      const starts = await Promise.all(
        orders.map(({ orderId }) =>
          tenant.as<Order>([...placement], 'POST', `/orders/${orderId}/place-order-session/start`, {
            placeOrderSessionId: randomUUID(),
          }),
        ),
      );
      const results = await Promise.all(
        orders.map(async ({ orderId }, index) => {
          const expiresAt = Date.parse(starts[index].json.placement.expiresAt);
          await waitFor('the deadline', () => Date.now() >= expiresAt, {
            timeoutMs: PLACEMENT_TIMEOUT_MS + 5000,
            intervalMs: 5,
          });
          return tenant.as([...placement], 'POST', `/orders/${orderId}/pos/placed`, placedReport());
        }),
      );
      for (const [index, { orderId }] of orders.entries()) {
        const final = await waitFor('a terminal state', async () => {
          const read = await order(orderId);
          return read.finalized ? read : undefined;
        });
        expect([200, 405]).toContain(results[index].status);
        expect(final.status).toBe(results[index].status === 200 ? 'placed' : 'failed');
        const terminal = final.timeline.filter((e: Order) =>
          ['pos_placed', 'placement_timeout'].includes(e.type),
        );
        expect(terminal).toHaveLength(1);
      }
    });

    it('answers 409 to a session start on an order still waiting for payment, and 400 with errors[] to a session id that is not a UUID', async () => {
      const { orderId, status } = await placeBasket(tenant, storeId, {
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
      });
      expect(status).toBe('awaiting_payment');
      const notReady = await tenant.as(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: randomUUID() },
      );
      expect(notReady.status).toBe(409);
      expect(notReady.json).toMatchObject({ code: 'order.not_ready' });
      const bad = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: 'nope' },
      );
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0].path).toBe('placeOrderSessionId');
    });

    it('validates every field of the placed report with 400 and errors[], leaving the order open', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const cases: Array<Record<string, unknown>> = [
        { ...placedReport(), orderName: undefined },
        { ...placedReport(), datePlaced: 'yesterday' },
        { ...placedReport(), estimatedReadyTime: undefined },
        { ...placedReport(), cancelableUntil: '2026-13-01' },
        { ...placedReport(), orderRefsDict: { a: 1 } },
        { ...placedReport(), receipt: 42 },
        { ...placedReport(), extensions: [1] },
        // ISO 8601 forms that are not an instant: a date, week and ordinal dates, no zone.
        { ...placedReport(), datePlaced: '2026-11-23' },
        { ...placedReport(), datePlaced: '2026-W47-1' },
        { ...placedReport(), estimatedReadyTime: '2026-327' },
        { ...placedReport(), estimatedReadyTime: '2026-11-23T18:00:05' },
        { ...placedReport(), cancelableUntil: '2026-02-30T18:00:00Z' },
        // A guest-facing name with no text, or a line break (it goes into mail subjects).
        { ...placedReport(), orderName: '   ' },
        { ...placedReport(), orderName: 'A12\r\nBcc: x@example.com' },
        { ...placedReport(), orderRefsDict: { '': 'pos-1' } },
      ];
      for (const body of cases) {
        const response = await tenant.as<Order>(
          [...placement],
          'POST',
          `/orders/${orderId}/pos/placed`,
          body,
        );
        expect({ body, status: response.status }).toEqual({ body, status: 400 });
        expect(response.json.errors.length).toBeGreaterThan(0);
        const messages = response.json.errors.map((e: Order) => `${e.path}: ${e.message}`);
        expect(new Set(messages).size).toBe(messages.length);
      }
      expect((await order(orderId)).status).toBe('ready');
      const offset = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/pos/placed`,
        {
          ...placedReport(),
          datePlaced: '2026-11-23T19:00:00.250+01:00',
        },
      );
      expect(offset.status).toBe(200);
    });

    it('takes the other ISO 8601 forms with a zone (lower-case t and z, basic format, +0100) and keeps them in RFC 3339 form', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const placed = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/pos/placed`,
        {
          ...placedReport(),
          datePlaced: '2026-11-23t18:00:05z',
          estimatedReadyTime: '20261123T192000+0100',
        },
      );
      expect(placed.status).toBe(200);
      const { report } = (await order(orderId)).placement;
      expect([report.datePlaced, report.estimatedReadyTime]).toEqual([
        '2026-11-23T18:00:05Z',
        '2026-11-23T19:20:00+01:00',
      ]);
    });
  });

  it("answers 404 for another tenant's order, basket and store, never the data", async () => {
    const { orderId, basketId } = await placeBasket(tenant, storeId);
    const other = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
    // One after the other: each call provisions a client of the new tenant.
    const answers = [
      await other.as(['orders:read'], 'GET', `/orders/${orderId}`),
      await other.as(['orders:placement'], 'POST', `/orders/${orderId}/pos/placed`, placedReport()),
      await other.as(['storefront'], 'GET', `/baskets/${basketId}`),
      await other.as(['storefront'], 'GET', `/stores/${storeId}/menu`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404]);
    expect(answers[0].json).toMatchObject({ code: 'order.not_found' });
    expect((await order(orderId)).status).toBe('ready');
  });

  describe('orderRefsDict', () => {
    it('answers 409 to a value already tied to another order of the tenant, whatever its key, and keeps the order open; another tenant may use it', async () => {
      const value = `pos-${randomUUID()}`;
      const first = await placeBasket(tenant, storeId);
      const second = await placeBasket(tenant, storeId);
      expect(
        (
          await tenant.as(
            [...placement],
            'POST',
            `/orders/${first.orderId}/pos/placed`,
            placedReport({ posId: value }),
          )
        ).status,
      ).toBe(200);
      const taken = await tenant.as(
        [...placement],
        'POST',
        `/orders/${second.orderId}/pos/placed`,
        placedReport({ other: value }),
      );
      expect(taken.status).toBe(409);
      expect(taken.json).toMatchObject({ code: 'order.ref_taken' });
      expect((await order(second.orderId)).status).toBe('ready');

      const elsewhere = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
      const otherStore = await seedStore(elsewhere);
      const theirs = await placeBasket(elsewhere, otherStore);
      expect(
        (
          await elsewhere.as(
            [...placement],
            'POST',
            `/orders/${theirs.orderId}/pos/placed`,
            placedReport({ posId: value }),
          )
        ).status,
      ).toBe(200);
    });

    it('refuses a key named like an object internal instead of dropping it and its uniqueness', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const refused = await tenant.as(
        [...placement],
        'POST',
        `/orders/${orderId}/pos/placed`,
        placedReport({ toString: `pos-${randomUUID()}` }),
      );
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'request.forbidden_member' });
      expect((await order(orderId)).status).toBe('ready');
    });

    it('answers 409, never a deadlock, to concurrent pos/placed sharing many refs in opposite orders', async () => {
      for (let round = 0; round < 25; round += 1) {
        const values = Array.from({ length: 40 }, (_, i) => `pos-${round}-${i}-${randomUUID()}`);
        const refsIn = (order: string[]) =>
          Object.fromEntries(order.map((value, i) => [`ref${i}`, value]));
        const [a, b] = await Promise.all([
          placeBasket(tenant, storeId),
          placeBasket(tenant, storeId),
        ]);
        const answers = await Promise.all(
          [
            [a, values],
            [b, [...values].reverse()],
          ].map(([o, order]) =>
            tenant.as(
              [...placement],
              'POST',
              `/orders/${(o as { orderId: string }).orderId}/pos/placed`,
              placedReport(refsIn(order as string[])),
            ),
          ),
        );
        expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      }
    });

    it('lets exactly one of two concurrent pos/placed sharing a ref win', async () => {
      const value = `pos-${randomUUID()}`;
      const [a, b] = await Promise.all([
        placeBasket(tenant, storeId),
        placeBasket(tenant, storeId),
      ]);
      const answers = await Promise.all(
        [a, b].map((o) =>
          tenant.as(
            [...placement],
            'POST',
            `/orders/${o.orderId}/pos/placed`,
            placedReport({ ref: value }),
          ),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const statuses = [(await order(a.orderId)).status, (await order(b.orderId)).status].sort();
      expect(statuses).toEqual(['placed', 'ready']);
    });
  });

  describe('the order POS adapters read', () => {
    it('carries mappingDetails of store, items, charge items and discounts byte for byte, and no later menu change alters it', async () => {
      // A tenant of its own: its charges config and catalogue changes touch no other test.
      const tenant = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
      const storeId = await seedStore(tenant, { paymentMerchantId: 'merchant-1' });
      const chargeMapping = { 'fee.code': '0099', label: 'Liefer­gebühr "express"' };
      // A mapping value that is no string would leave the fee out of every basket: refused.
      const refused = await tenant.as(
        ['configs:write'],
        'POST',
        '/entities/order-charges/configs',
        {
          id: 'charges',
          values: { deliveryFee: { title: 'Delivery', amount: 500, mappingDetails: { code: 99 } } },
        },
      );
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({
        code: 'config.values_invalid',
        errors: [{ path: 'values.deliveryFee.mappingDetails' }],
      });
      const config = await tenant.as(['configs:write'], 'POST', '/entities/order-charges/configs', {
        id: 'charges',
        values: {
          deliveryFee: { title: 'Delivery', amount: 500, mappingDetails: chargeMapping },
          serviceCharge: { title: 'Service', amount: 150, mappingDetails: { sc: '01' } },
        },
      });
      expect(config.status).toBe(200);
      const basket = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'delivery',
        guest: GUEST,
      });
      await tenant.as(['storefront'], 'POST', `/baskets/${basket.json.id}/items`, {
        menuItemId: 'burger',
        quantity: 2,
      });
      const withCharges = await waitFor('the charge items from the config', async () => {
        const read = await tenant.as<Order>(['storefront'], 'GET', `/baskets/${basket.json.id}`);
        return read.json.chargeItems.length === 2 ? read.json : undefined;
      });
      const line = withCharges.lines[0];
      const discountMapping = { 'loyalty.id': 'L-0001', reward: '½ price' };
      const discounted = await tenant.as(
        ['loyalty:write'],
        'POST',
        `/baskets/${basket.json.id}/discounts`,
        {
          id: 'disc-1',
          title: 'Half a burger',
          mappingDetails: discountMapping,
          amounts: [{ itemId: line.id, unitId: line.units[1].id, value: 925 }],
        },
      );
      expect(discounted.status).toBe(201);
      const checkout = await tenant.as<Order>(
        ['storefront'],
        'POST',
        `/baskets/${basket.json.id}/checkout`,
        {},
      );
      const orderId = checkout.json.orderId;
      // The catalogue changes after the order is ready: mapping, title and price.
      await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}`, {
        name: 'Renamed',
        currency: 'CHF',
        mappingDetails: { changed: 'yes' },
        paymentMerchantId: 'merchant-1',
      });
      await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}/menu`, {
        items: [
          {
            id: 'burger',
            type: 'menuItem',
            title: 'Burger XL',
            price: 9999,
            mappingDetails: { plu: 'changed' },
          },
          {
            id: 'fries',
            type: 'menuItem',
            title: 'Fries',
            price: 600,
            mappingDetails: { plu: '0042' },
          },
        ],
      });
      const started = await tenant.as<Order>(
        ['orders:placement', 'personal-data:read'],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        {
          placeOrderSessionId: randomUUID(),
        },
      );
      expect(started.status).toBe(200);
      const o = started.json;
      expect(JSON.stringify(o.storeDetails.mappingDetails)).toBe(JSON.stringify(STORE_MAPPING));
      expect(o.storeDetails.name).toBe('Zum Löwen');
      const burger = o.items.find((item: Order) => item.menuItemId === 'burger');
      expect(burger).toMatchObject({
        title: 'Burger',
        unitPrice: 1850,
        quantity: 2,
        type: 'menuItem',
      });
      expect(burger.units).toHaveLength(2);
      expect(JSON.stringify(burger.mappingDetails)).toBe(JSON.stringify(ITEM_MAPPING));
      const fee = o.items.find((item: Order) => item.type === 'deliveryFee');
      expect(fee).toMatchObject({ title: 'Delivery', quantity: 1, unitPrice: 500 });
      // Every key and value exactly; their order is the config store's (jsonb, like the bus).
      expect(fee.mappingDetails).toStrictEqual(chargeMapping);
      expect(o.items.find((item: Order) => item.type === 'serviceCharge')).toMatchObject({
        unitPrice: 150,
      });
      expect(JSON.stringify(o.discounts[0].mappingDetails)).toBe(JSON.stringify(discountMapping));
      expect(o.discounts[0].amounts).toEqual([
        { itemId: burger.id, unitId: burger.units[1].id, value: 925 },
      ]);
      expect(o.totals).toMatchObject({
        currency: 'CHF',
        items: 3700,
        charges: 650,
        discounts: 925,
        total: 3425,
      });
      expect(o.guest).toEqual(GUEST);
    });

    it('refuses a checkout whose discount no longer fits a charge item priced anew', async () => {
      const tenant = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
      const storeId = await seedStore(tenant, { paymentMerchantId: 'merchant-1' });
      const charges = (amount: number) => ({
        id: 'charges',
        values: { deliveryFee: { title: 'Delivery', amount, mappingDetails: {} } },
      });
      const created = await tenant.as(
        ['configs:write'],
        'POST',
        '/entities/order-charges/configs',
        charges(300),
      );
      expect(created.status).toBe(200);
      const basket = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'delivery',
        guest: GUEST,
      });
      const basketPath = `/baskets/${basket.json.id}`;
      await tenant.as(['storefront'], 'POST', `${basketPath}/items`, {
        menuItemId: 'burger',
        quantity: 1,
      });
      const feeUnit = await waitFor('the delivery fee from the config', async () => {
        const read = await tenant.as<Order>(['storefront'], 'GET', basketPath);
        return read.json.chargeItems[0]?.units[0]?.id as string | undefined;
      });
      const discounted = await tenant.as(['loyalty:write'], 'POST', `${basketPath}/discounts`, {
        id: 'free-delivery',
        title: 'Free delivery',
        mappingDetails: {},
        amounts: [{ itemId: 'delivery-fee', unitId: feeUnit, value: 300 }],
      });
      expect(discounted.status).toBe(201);

      // The fee is lowered after the discount was granted: it would now take 200 off the burger.
      const lowered = await tenant.as(
        ['configs:write'],
        'PUT',
        '/entities/order-charges/configs',
        charges(100),
      );
      expect(lowered.status).toBe(200);
      await waitFor('the lowered fee in the basket', async () => {
        const read = await tenant.as<Order>(['storefront'], 'GET', basketPath);
        return read.json.chargeItems[0]?.unitPrice === 100;
      });
      const checkout = await tenant.as<Order>(['storefront'], 'POST', `${basketPath}/checkout`, {});
      expect(checkout.status).toBe(409);
      expect(checkout.json).toMatchObject({ code: 'discount.invalid_target' });
      expect(checkout.json.detail).toMatch(/free-delivery.*costs 100/);
      const after = await tenant.as<Order>(['storefront'], 'GET', basketPath);
      expect(after.json.orderId ?? null).toBeNull();
    });

    it('refuses a checkout when the store changed its currency after the basket was started', async () => {
      const tenant = await ordersTenant(platform, `orders-${randomUUID().slice(0, 8)}`);
      const storeId = await seedStore(tenant);
      const basket = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
        storeId,
        fulfillment: 'pickup',
        guest: GUEST,
      });
      const basketPath = `/baskets/${basket.json.id}`;
      await tenant.as(['storefront'], 'POST', `${basketPath}/items`, {
        menuItemId: 'burger',
        quantity: 1,
      });
      // seedStore sells in CHF.
      const changed = await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}`, {
        name: 'Zum Löwen',
        currency: 'JPY',
        mappingDetails: {},
      });
      expect(changed.status).toBe(200);
      const checkout = await tenant.as<Order>(['storefront'], 'POST', `${basketPath}/checkout`, {});
      expect(checkout.status).toBe(409);
      expect(checkout.json).toMatchObject({ code: 'basket.currency_changed' });
      const after = await tenant.as<Order>(['storefront'], 'GET', basketPath);
      expect(after.json.orderId ?? null).toBeNull();
    });

    it('refuses a checkout with a payment of nothing (409 checkout.nothing_to_pay) and a blank payment method (400), leaving the basket open', async () => {
      const freeStore = await seedStore(tenant, { paymentMerchantId: 'merchant-1' });
      const menu = await tenant.as(['catalog:write'], 'PUT', `/stores/${freeStore}/menu`, {
        items: [{ id: 'water', type: 'menuItem', title: 'Water', price: 0, mappingDetails: {} }],
      });
      expect(menu.status).toBe(200);
      const blank = await tenant.as(['storefront'], 'POST', '/baskets', {
        storeId: freeStore,
        fulfillment: 'pickup',
        guest: GUEST,
        payment: { merchantId: 'merchant-1', paymentMethod: ' ' },
      });
      expect(blank.status).toBe(400);
      expect(JSON.stringify(blank.json)).toContain('paymentMethod must contain visible text');

      const basket = await tenant.as<Order>(['storefront'], 'POST', '/baskets', {
        storeId: freeStore,
        fulfillment: 'pickup',
        guest: GUEST,
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
      });
      expect(basket.status).toBe(201);
      const basketPath = `/baskets/${basket.json.id}`;
      const added = await tenant.as(['storefront'], 'POST', `${basketPath}/items`, {
        menuItemId: 'water',
        quantity: 1,
      });
      expect(added.status).toBe(201);
      const checkout = await tenant.as<Order>(['storefront'], 'POST', `${basketPath}/checkout`, {});
      expect(checkout.status).toBe(409);
      expect(checkout.json).toMatchObject({ code: 'checkout.nothing_to_pay' });
      expect(checkout.json.detail).toMatch(/totals 0 CHF/);
      const after = await tenant.as<Order>(['storefront'], 'GET', basketPath);
      expect(after.json.orderId ?? null).toBeNull();
    });

    it('redacts guest name, e-mail, phone and address without personal-data:read, in the order, the ready list, the session start and the basket', async () => {
      const { orderId, basketId } = await placeBasket(tenant, storeId, { fulfillment: 'delivery' });
      const redacted = {
        name: '[redacted]',
        email: '[redacted]',
        phone: '[redacted]',
        address: '[redacted]',
      };
      expect((await order(orderId)).guest).toEqual(redacted);
      expect((await order(orderId, ['orders:read', 'personal-data:read'])).guest).toEqual(GUEST);
      const list = await tenant.as<{ items: Order[] }>(
        [...reader],
        'GET',
        '/orders?placementStatus=ready&limit=100',
      );
      expect(list.json.items.find((o) => o.id === orderId)?.guest).toEqual(redacted);
      const basket = await tenant.as<Order>(['storefront'], 'GET', `/baskets/${basketId}`);
      expect(basket.json.guest).toEqual(redacted);
      const start = await tenant.as<Order>(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: randomUUID() },
      );
      expect(start.json.guest).toEqual(redacted);
    });

    it('lists ready orders for polling, paginated, and a finalized order leaves the list', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await tenant.as<{ items: Order[]; nextCursor?: string }>(
          [...reader],
          'GET',
          `/orders?placementStatus=ready&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        expect(page.json.items.length).toBeLessThanOrEqual(2);
        expect(page.json.items.every((o) => o.status === 'ready')).toBe(true);
        ids.push(...page.json.items.map((o) => o.id));
        cursor = page.json.nextCursor;
      } while (cursor);
      expect(ids).toContain(orderId);
      await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/failed`, {
        code: 'x',
        message: 'y',
      });
      const after = await tenant.as<{ items: Order[] }>(
        [...reader],
        'GET',
        '/orders?placementStatus=ready&limit=100',
      );
      expect(after.json.items.map((o) => o.id)).not.toContain(orderId);
    });

    it('serves the receipt in JSON, or as the text itself to a client preferring it, exactly as reported, and stores the confirmation e-mail with it', async () => {
      const { orderId } = await placeBasket(tenant, storeId);
      const report = {
        ...placedReport(),
        receipt: 'ZUM LÖWEN\r\n  1 x Burger  18.50\n€ "quoted" \\ \n',
      };
      expect(
        (await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/placed`, report)).status,
      ).toBe(200);
      const receipt = await tenant.as([...reader], 'GET', `/orders/${orderId}/receipt`);
      expect(receipt.status).toBe(200);
      expect(receipt.headers.get('content-type')).toMatch(/^application\/json/);
      expect(receipt.json).toEqual({ orderId, receipt: report.receipt });
      for (const accept of ['text/plain', 'text/plain, application/json;q=0.5', 'text/*']) {
        const text = await tenant.as([...reader], 'GET', `/orders/${orderId}/receipt`, undefined, {
          accept,
        });
        expect(text.status).toBe(200);
        expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(text.headers.get('vary')).toMatch(/accept/i);
        // The POS wrote the text: a browser must not take it for HTML or script.
        expect(text.headers.get('x-content-type-options')).toBe('nosniff');
        expect(text.text).toBe(report.receipt);
      }
      // JSON ranked first, or no preference, or nothing the route has: JSON.
      for (const accept of ['application/json, text/plain', '*/*', 'image/png']) {
        const json = await tenant.as([...reader], 'GET', `/orders/${orderId}/receipt`, undefined, {
          accept,
        });
        expect(json.json).toEqual({ orderId, receipt: report.receipt });
      }
      const mail = await waitFor('the confirmation e-mail', async () => {
        const read = await tenant.as<Order>(
          ['orders:read', 'personal-data:read'],
          'GET',
          `/orders/${orderId}/confirmation-email`,
        );
        return read.status === 200 ? read.json : undefined;
      });
      expect(mail).toMatchObject({ to: GUEST.email, transport: 'stored' });
      expect(mail.text).toContain(report.receipt);
      expect(mail.html).toContain('&quot;quoted&quot;');
      const redacted = await tenant.as<Order>(
        [...reader],
        'GET',
        `/orders/${orderId}/confirmation-email`,
      );
      expect(redacted.json.to).toBe('[redacted]');
    });
  });

  it('describes every route of the orders service in its OpenAPI document, with bodies and answers', async () => {
    const orders = platform.services.get('orders');
    const response = await fetch(`${orders?.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: object }>>;
    };
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        // Every service with a database answers for its own dead letters (docs/operations.md).
        '/admin/dead-letters',
        '/admin/dead-letters/{id}',
        '/admin/dead-letters/{id}/replay',
        '/baskets',
        '/baskets/{basketId}',
        '/baskets/{basketId}/checkout',
        '/baskets/{basketId}/discounts',
        '/baskets/{basketId}/items',
        '/event-subscriptions',
        '/event-subscriptions/{id}',
        '/event-subscriptions/{id}/deliveries',
        '/event-subscriptions/{id}/deliveries/{deliveryId}/redeliver',
        '/orders',
        '/orders/{orderId}',
        '/orders/{orderId}/confirmation-email',
        '/orders/{orderId}/place-order-session/start',
        '/orders/{orderId}/pos/failed',
        '/orders/{orderId}/pos/placed',
        '/orders/{orderId}/receipt',
        '/stores/{storeId}',
        '/stores/{storeId}/menu',
      ]
        .concat(Object.keys(document.paths).filter((path) => path.startsWith('/health')))
        .sort(),
    );
    expect(document.paths['/orders/{orderId}/pos/placed'].post.requestBody).toBeDefined();
    expect(document.paths['/baskets'].post.requestBody).toBeDefined();
  });

  describe('the payment leg of the saga', () => {
    it('announces basket.checked_out with total and payment, closes the order on payment.authorized exactly once', async () => {
      const { orderId } = await placeBasket(tenant, storeId, {
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
        quantity: 2,
      });
      const checkedOut = await waitFor(
        'basket.checked_out',
        () => eventsOf('basket.checked_out', orderId)[0],
      );
      expect(checkedOut.data).toMatchObject({
        orderId,
        storeId,
        total: { value: 3700, currency: 'CHF' },
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
      });
      const amount = { value: 3700, currency: 'CHF' };
      await publish('payment.registered', { paymentId: 'pay-1', orderId, amount });
      const authorized = createCloudEvent('/comanda/payments', {
        type: 'payment.authorized',
        tenantId: tenant.tenantId,
        subject: 'pay-1',
        data: { paymentId: 'pay-1', orderId, amount },
      });
      await publisher.publish(authorized);
      await publisher.publish(authorized); // redelivered: the inbox applies it once
      const ready = await waitFor('the order ready', async () => {
        const read = await order(orderId);
        return read.status === 'ready' ? read : undefined;
      });
      expect(ready.payments).toEqual([
        expect.objectContaining({ paymentId: 'pay-1', status: 'authorized', amount }),
      ]);
      await waitFor('the ready event', () => readyEvents.find((e) => e.subject === orderId));
      await publish('payment.authorized', { paymentId: 'pay-1', orderId, amount }); // a new event, out of place: recorded
      await waitFor('the late event recorded', async () =>
        (await order(orderId)).timeline.some((e: Order) => e.type === 'payment.authorized'),
      );
      expect(readyEvents.filter((e) => e.subject === orderId)).toHaveLength(1);

      await tenant.as([...placement], 'POST', `/orders/${orderId}/pos/placed`, placedReport());
      const placed = await waitFor('order.placed', () => eventsOf('order.placed', orderId)[0]);
      expect(placed.data).toMatchObject({ paymentId: 'pay-1' });
    });

    it('lists the payment from its registration request, and counts the captures requested', async () => {
      const { orderId } = await placeBasket(tenant, storeId, {
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
      });
      const amount = { value: 1850, currency: 'CHF' };
      const requested = (operationType: PaymentOperationType, operationId = randomUUID()) =>
        publish('payment.operation_requested', {
          paymentId: 'pay-3',
          orderId,
          operationId,
          operationType,
          amount,
        });
      await requested('registration');
      const pending = await waitFor('the payment listed', async () => {
        const read = await order(orderId);
        return read.payments.length > 0 ? read : undefined;
      });
      expect(pending.status).toBe('awaiting_payment');
      expect(pending.payments).toEqual([
        { paymentId: 'pay-3', status: 'pending', amount, updatedAt: expect.any(String) },
      ]);
      await publish('payment.registered', { paymentId: 'pay-3', orderId, amount });
      await requested('authorization');
      await publish('payment.authorized', { paymentId: 'pay-3', orderId, amount });
      await waitFor('the order ready', async () => (await order(orderId)).status === 'ready');
      await requested('capture');
      await requested('capture');
      const retried = await waitFor('two captures counted', async () => {
        const read = await order(orderId);
        return read.payments[0]?.captureAttempts === 2 ? read : undefined;
      });
      expect(retried.payments).toEqual([
        expect.objectContaining({ paymentId: 'pay-3', status: 'authorized', captureAttempts: 2 }),
      ]);
      // A request of another kind changes nothing; a state change keeps the count (one queue:
      // the request is applied before the capture).
      await requested('registration');
      await publish('payment.captured', { paymentId: 'pay-3', orderId, amount });
      const captured = await waitFor('the payment captured', async () => {
        const read = await order(orderId);
        return read.payments[0]?.status === 'captured' ? read : undefined;
      });
      expect(captured.payments).toEqual([
        expect.objectContaining({ status: 'captured', captureAttempts: 2 }),
      ]);
    });

    it('fails the order visibly on payment.failed, with the reason, and never announces it to POS', async () => {
      const { orderId } = await placeBasket(tenant, storeId, {
        payment: { merchantId: 'merchant-1', paymentMethod: 'card' },
      });
      await publish('payment.failed', {
        paymentId: 'pay-2',
        orderId,
        amount: { value: 1850, currency: 'CHF' },
        reason: 'authorization_failed',
      });
      const failed = await waitFor('the order failed', async () => {
        const read = await order(orderId);
        return read.status === 'failed' ? read : undefined;
      });
      expect(failed.failure).toMatchObject({
        code: 'payment.failed',
        message: 'authorization_failed',
      });
      expect(failed.payments[0]).toMatchObject({
        paymentId: 'pay-2',
        status: 'failed',
        reason: 'authorization_failed',
      });
      const checkoutFailed = await waitFor(
        'order.checkout_failed',
        () => eventsOf('order.checkout_failed', orderId)[0],
      );
      expect(checkoutFailed.data).toEqual({ orderId, reason: 'authorization_failed' });
      expect(readyEvents.find((e) => e.subject === orderId)).toBeUndefined();
      const start = await tenant.as(
        [...placement],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: randomUUID() },
      );
      expect(start.status).toBe(409);
    });
  });
});
