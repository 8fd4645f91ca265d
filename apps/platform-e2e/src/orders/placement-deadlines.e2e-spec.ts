import { randomUUID } from 'node:crypto';
import { createTestDatabase, TcpProxy, waitFor } from '@comanda/testing';
import {
  newPlatformState,
  startTestPlatform,
  type PlatformState,
  type TestPlatform,
} from '../support/platform';
import { ordersTenant, placeBasket, placedReport, seedStore } from './orders-api';

type Order = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEADLINE_MS = 5000;

/**
 * The placement deadlines live in Postgres: a platform stopped while they are pending fires
 * them after it starts again, once each.
 */
describe('placement deadlines across a restart', () => {
  let state: PlatformState;
  let running: TestPlatform | undefined;

  async function boot(): Promise<TestPlatform> {
    running = await startTestPlatform('e2e_orders_deadlines', {
      state,
      env: {
        PLACEMENT_TIMEOUT_MS: String(DEADLINE_MS),
        PLACEMENT_PICKUP_TIMEOUT_MS: String(DEADLINE_MS),
        // A deadline already due at the restart waits this long (docs/adr/0060).
        TIMER_OUTAGE_GRACE_MS: '1000',
      },
    });
    return running;
  }

  beforeAll(async () => {
    state = newPlatformState(await createTestDatabase('e2e_orders_deadlines'));
  });

  afterAll(async () => {
    await running?.close();
    await state?.database.drop();
  });

  it('fails a started session (placement.timeout) and an order no POS picked up (placement.not_picked_up) after a restart, once each', async () => {
    const first = await boot();
    const tenantId = `deadlines-${randomUUID().slice(0, 8)}`;
    const before = await ordersTenant(first, tenantId);
    const storeId = await seedStore(before);
    const started = await placeBasket(before, storeId);
    const waiting = await placeBasket(before, storeId);
    const session = await before.as<Order>(
      ['orders:placement'],
      'POST',
      `/orders/${started.orderId}/place-order-session/start`,
      { placeOrderSessionId: randomUUID() },
    );
    expect(session.status).toBe(200);
    await running?.close();
    running = undefined;

    const second = await boot();
    const after = await ordersTenant(second, tenantId);
    const read = async (orderId: string) =>
      (await after.as<Order>(['orders:read'], 'GET', `/orders/${orderId}`)).json;
    const timedOut = await waitFor(
      'the placement timeout after the restart',
      async () => {
        const order = await read(started.orderId);
        return order.status === 'failed' ? order : undefined;
      },
      { timeoutMs: DEADLINE_MS + 30_000 },
    );
    expect(timedOut.failure.code).toBe('placement.timeout');
    const notPickedUp = await waitFor(
      'the pickup timeout after the restart',
      async () => {
        const order = await read(waiting.orderId);
        return order.status === 'failed' ? order : undefined;
      },
      { timeoutMs: DEADLINE_MS + 30_000 },
    );
    expect(notPickedUp.failure.code).toBe('placement.not_picked_up');
    // Fired once: one failing transition each, and a callback now finds the order finalized.
    expect(
      timedOut.timeline.filter((entry: Order) => entry.type === 'placement_timeout'),
    ).toHaveLength(1);
    expect(
      notPickedUp.timeline.filter((entry: Order) => entry.type === 'pickup_timeout'),
    ).toHaveLength(1);
    const late = await after.as(
      ['orders:placement'],
      'POST',
      `/orders/${started.orderId}/pos/failed`,
      {
        code: 'late',
        message: 'too late',
      },
    );
    expect(late.status).toBe(405);
  });

  it('holds the placement deadline to the instant: a session start or a report after it is refused and the order fails, however late the timer', async () => {
    await running?.close();
    running = undefined;
    const database = await createTestDatabase('e2e_orders_deadline_instant');
    const late = await startTestPlatform('e2e_orders_deadline_instant', {
      state: newPlatformState(database),
      // The timer poller looks only every ten minutes: the deadline must hold without it.
      env: { PLACEMENT_TIMEOUT_MS: '1500', TIMER_POLL_MS: '600000' },
    });
    try {
      const tenant = await ordersTenant(late, `instant-${randomUUID().slice(0, 8)}`);
      const storeId = await seedStore(tenant);
      const { orderId } = await placeBasket(tenant, storeId);
      const session = await tenant.as<Order>(
        ['orders:placement'],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: randomUUID() },
      );
      const expiresAt = Date.parse(session.json.placement.expiresAt);
      await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 200));
      // An adapter resuming its session now must not send the order to the POS.
      const resumed = await tenant.as<Order>(
        ['orders:placement'],
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: session.json.placement.sessionId },
      );
      expect(resumed.status).toBe(409);
      expect(resumed.json.code).toBe('order.not_ready');
      const failed = (await tenant.as<Order>(['orders:read'], 'GET', `/orders/${orderId}`)).json;
      expect(failed).toMatchObject({ status: 'failed', failure: { code: 'placement.timeout' } });
      const report = await tenant.as(
        ['orders:placement'],
        'POST',
        `/orders/${orderId}/pos/placed`,
        {
          orderName: 'Too late',
          datePlaced: new Date().toISOString(),
          estimatedReadyTime: new Date().toISOString(),
        },
      );
      expect(report.status).toBe(405);
      const order = (await tenant.as<Order>(['orders:read'], 'GET', `/orders/${orderId}`)).json;
      expect(order.status).toBe('failed');
      expect(order.failure.code).toBe('placement.timeout');
    } finally {
      await late.close();
      await database.drop();
    }
  });

  it('gives the POS a grace after a database outage: a report refused with 503 across the deadline counts when sent again; a silent order still fails', async () => {
    await running?.close();
    running = undefined;
    const database = await createTestDatabase('e2e_orders_deadline_outage');
    const target = new URL(database.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const graceMs = 4000;
    const platform = await startTestPlatform('e2e_orders_deadline_outage', {
      state: newPlatformState(database),
      env: {
        DATABASE_URL: proxy.urlFor(database.url),
        PLACEMENT_TIMEOUT_MS: '4000',
        TIMER_OUTAGE_GRACE_MS: String(graceMs),
      },
    });
    try {
      const tenant = await ordersTenant(platform, `outage-${randomUUID().slice(0, 8)}`);
      const storeId = await seedStore(tenant);
      const reported = await placeBasket(tenant, storeId);
      const silent = await placeBasket(tenant, storeId);
      const start = (orderId: string) =>
        tenant.as<Order>(
          ['orders:placement'],
          'POST',
          `/orders/${orderId}/place-order-session/start`,
          {
            placeOrderSessionId: randomUUID(),
          },
        );
      const session = await start(reported.orderId);
      expect(session.status).toBe(200);
      expect((await start(silent.orderId)).status).toBe(200);
      const expiresAt = Date.parse(session.json.placement.expiresAt);
      const report = (orderId: string) =>
        tenant.as(['orders:placement'], 'POST', `/orders/${orderId}/pos/placed`, placedReport());
      const until = (at: number) => new Promise((resolve) => setTimeout(resolve, at - Date.now()));

      // The POS reports a second before the deadline, while PostgreSQL is out of reach.
      await until(expiresAt - 1000);
      proxy.goDown();
      const refused = await report(reported.orderId);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      await until(expiresAt + 1500);
      proxy.comeBack();

      // Back after the deadline: the timer poller is up again (TIMER_POLL_MS 200) and would
      // have failed the order by now; within the grace the POS's retry is taken.
      const read = async (orderId: string) =>
        (await tenant.as<Order>(['orders:read'], 'GET', `/orders/${orderId}`)).json;
      await waitFor('the database to answer again', async () => (await read(silent.orderId)).id);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await read(reported.orderId)).status).toBe('placing');
      // Its id spelled in upper case: the same order, whose deadline must be found as well.
      const retried = await report(reported.orderId.toUpperCase());
      expect(retried.status).toBe(200);
      expect((await read(reported.orderId)).status).toBe('placed');

      // The grace only waits for a report: an order no POS reported fails when it is over.
      const failed = await waitFor(
        'the silent order to fail after the grace',
        async () => {
          const order = await read(silent.orderId);
          return order.status === 'failed' ? order : undefined;
        },
        { timeoutMs: graceMs + 10_000 },
      );
      expect(failed.failure.code).toBe('placement.timeout');
      expect(Date.parse(failed.failure.at)).toBeGreaterThan(expiresAt + 1500);
      expect((await read(reported.orderId)).status).toBe('placed');

      // A stall shorter than the statement deadline across the deadline: the report sent
      // before it waits, goes through when PostgreSQL answers again, and counts.
      const stalled = await placeBasket(tenant, storeId);
      const stalledSession = await start(stalled.orderId);
      const stalledExpiresAt = Date.parse(stalledSession.json.placement.expiresAt);
      await until(stalledExpiresAt - 1500);
      proxy.stall();
      const sent = report(stalled.orderId);
      await until(stalledExpiresAt + 2500);
      proxy.resume();
      expect((await sent).status).toBe(200);
      expect((await read(stalled.orderId)).status).toBe('placed');
    } finally {
      proxy.comeBack();
      proxy.resume();
      await platform.close();
      await proxy.stop();
      await database.drop();
    }
  });
});
