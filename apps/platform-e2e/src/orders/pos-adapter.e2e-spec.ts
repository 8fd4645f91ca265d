import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '@comanda/platform';
import {
  createTestBroker,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
} from '@comanda/testing';
import { AUTH_KEYS_ENV } from '../auth/auth-test-kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ordersTenant, type OrdersTenant as Tenant } from './orders-api';
import { readyOrder } from './webhooks-kit';

const ROOT = resolve(__dirname, '../../../..');

interface RunningAdapter {
  output: string[];
  process: ChildProcess;
}

/** Runs apps/pos-adapter as its users do: its own process, configured by environment. */
async function startAdapter(
  env: Record<string, string>,
  readyLine: RegExp,
): Promise<RunningAdapter> {
  const child = spawn(
    process.execPath,
    ['-r', './tools/register.js', 'apps/pos-adapter/src/main.ts'],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) =>
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  await waitFor(
    `the adapter to log ${readyLine}`,
    () => {
      if (child.exitCode !== null) throw new Error(`the adapter exited: ${output.join('\n')}`);
      return output.some((line) => readyLine.test(line));
    },
    { timeoutMs: 30_000 },
  );
  return { output, process: child };
}

/** SIGTERM, as a supervisor stops it: the adapter must be gone within 15 s. */
/** Runs `step`, and says on stderr how long it took when that was over 10 s. */
async function slowStepSaysSo<T>(name: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await step();
  } finally {
    const tookMs = Date.now() - started;
    if (tookMs > 10_000) process.stderr.write(`pos-adapter e2e: ${name} took ${tookMs} ms\n`);
  }
}

async function stop(adapter: RunningAdapter | undefined): Promise<void> {
  if (!adapter || adapter.process.exitCode !== null) return;
  const exited = new Promise<true>((done) => adapter.process.once('exit', () => done(true)));
  adapter.process.kill('SIGTERM');
  if (await Promise.race([exited, delay(15_000, false)])) return;
  adapter.process.kill('SIGKILL');
  await exited;
  throw new Error(`the adapter did not exit within 15 s of SIGTERM:\n${adapter.output.join('\n')}`);
}

interface OrderRead {
  status: string;
  finalized: boolean;
  placement: Record<string, unknown> | null;
  failure: Record<string, unknown> | null;
}

async function finalized(tenant: Tenant, orderId: string): Promise<OrderRead> {
  return waitFor(
    `order ${orderId} finalized`,
    async () => {
      const answer = await tenant.as<OrderRead>(['orders:read'], 'GET', `/orders/${orderId}`);
      return answer.json.finalized && answer.json;
    },
    { timeoutMs: 30_000 },
  );
}

describe('orders: the reference POS adapter end to end (RabbitMQ, through the gateway)', () => {
  let broker: TestBroker;
  let platform: TestPlatform;
  const adapters: RunningAdapter[] = [];
  const queues: string[] = [];

  async function adapterFor(tenant: Tenant, env: Record<string, string>, readyLine: RegExp) {
    const client = await tenant.client(['orders:placement']);
    const adapter = await startAdapter(
      {
        COMANDA_API_URL: platform.baseUrl,
        COMANDA_TENANT_ID: tenant.tenantId,
        COMANDA_CLIENT_ID: client.clientId,
        COMANDA_CLIENT_SECRET: client.clientSecret,
        POS_DELAY_MS: '50',
        ...env,
      },
      readyLine,
    );
    adapters.push(adapter);
    return adapter;
  }

  beforeAll(async () => {
    broker = await createTestBroker('e2e-pos-adapter');
    platform = await startTestPlatform('e2e_pos_adapter', { broker, env: { ...AUTH_KEYS_ENV } });
  }, 120_000);
  // Once (29 November, a fresh-clone CI) this took over a minute after every test had
  // passed: each step that takes long now says so, for the next time.
  afterAll(async () => {
    const stopped = await slowStepSaysSo('stopping the adapters', () =>
      Promise.allSettled(adapters.map(stop)),
    );
    await slowStepSaysSo('closing the platform', async () => platform?.close());
    await slowStepSaysSo('disposing of the broker', () => disposePlatformBroker(broker, queues));
    for (const outcome of stopped) if (outcome.status === 'rejected') throw outcome.reason;
  }, 120_000);

  it('places an order it takes from its own queue bound to order.ready_to_be_placed_in_pos.<tenant>', async () => {
    const tenant = await ordersTenant(platform, 'pos-mq');
    const queue = `${broker.queuePrefix}pos-adapter.pos-mq`;
    queues.push(queue);
    await adapterFor(
      tenant,
      { AMQP_URL: broker.url, AMQP_EXCHANGE: broker.exchange, POS_QUEUE: queue },
      /consuming/,
    );

    const { orderId } = await readyOrder(tenant);
    const order = await finalized(tenant, orderId);
    expect(order).toMatchObject({
      status: 'placed',
      placement: expect.objectContaining({
        report: expect.objectContaining({
          orderName: expect.stringMatching(/^Check \d{4}$/),
          orderRefsDict: { posOrderId: expect.stringMatching(/^sim-/) },
        }),
      }),
    });
    const receipt = await fetch(`${platform.baseUrl}/orders/${orderId}/receipt`, {
      headers: {
        authorization: `Bearer ${await (await tenant.client(['orders:read'])).token()}`,
        'x-api-version': '0',
      },
    });
    expect(receipt.status).toBe(200);
    // The store's mapping (ITEM_MAPPING's plu, leading zeros and all) reached the POS.
    expect(((await receipt.json()) as { receipt: string }).receipt).toContain(
      '1 x Burger [000123]',
    );
  });

  it('reports the failure its simulated POS answers', async () => {
    const tenant = await ordersTenant(platform, 'pos-mq-fail');
    const queue = `${broker.queuePrefix}pos-adapter.pos-mq-fail`;
    queues.push(queue);
    await adapterFor(
      tenant,
      {
        AMQP_URL: broker.url,
        AMQP_EXCHANGE: broker.exchange,
        POS_QUEUE: queue,
        POS_OUTCOME: 'failure',
        POS_FAILURE_CODE: 'pos.menu.item_unavailable',
      },
      /consuming/,
    );
    const { orderId } = await readyOrder(tenant);
    expect(await finalized(tenant, orderId)).toMatchObject({
      status: 'failed',
      failure: expect.objectContaining({ code: 'pos.menu.item_unavailable' }),
    });
  });

  it('places an order delivered by a webhook subscription, verifying the signature', async () => {
    const tenant = await ordersTenant(platform, 'pos-hook');
    // The endpoint must exist before the subscription names it: start with a placeholder
    // secret, subscribe, then restart on the same port with the subscription's secret. The
    // port is claimed (freePort), so nothing else takes it between the two starts.
    const port = String(await freePort());
    const probe = await adapterFor(
      tenant,
      { WEBHOOK_SECRET: 'placeholder', WEBHOOK_PORT: port, WEBHOOK_HOST: '127.0.0.1' },
      new RegExp(`webhook endpoint on port ${port}`),
    );
    await stop(probe);
    const subscription = await tenant.as<{ secret: string }>(
      ['orders:read'],
      'POST',
      '/event-subscriptions',
      {
        url: `http://127.0.0.1:${port}/comanda/events`,
        types: ['order.ready_to_be_placed_in_pos'],
      },
    );
    expect(subscription.status).toBe(201);
    await adapterFor(
      tenant,
      { WEBHOOK_SECRET: subscription.json.secret, WEBHOOK_PORT: port, WEBHOOK_HOST: '127.0.0.1' },
      /webhook endpoint on port/,
    );

    const { orderId } = await readyOrder(tenant);
    expect(await finalized(tenant, orderId)).toMatchObject({
      status: 'placed',
      placement: expect.objectContaining({
        report: expect.objectContaining({
          orderRefsDict: { posOrderId: expect.stringMatching(/^sim-/) },
        }),
      }),
    });
  });
});
