import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signBody } from '@comanda/outbound';
import { createTestBroker, waitFor, type TestBroker } from '@comanda/testing';
import amqp from 'amqplib';
import { startAdapter, type RunningAdapter } from './adapter';
import { loadConfig, type AdapterConfig } from './config';
import { sessionIdFor } from './order-placer';
import { verify } from './webhook-source';

interface Call {
  path: string;
  authorization?: string;
  body: Record<string, unknown>;
}

/** Plays Comanda's side: a token endpoint and the placement endpoints, answering as told. */
async function fakeComanda(): Promise<{
  url: string;
  calls: Call[];
  sessionStatus: { value: number };
  /** Statuses the next reports are answered with, one each, before 204 (with Retry-After: 0). */
  reportOutage: number[];
  close(): Promise<void>;
}> {
  const calls: Call[] = [];
  const sessionStatus = { value: 200 };
  const reportOutage: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '';
      if (path === '/auth/tenant-a/connect/token') {
        const form = new URLSearchParams(raw);
        calls.push({ path, body: Object.fromEntries(form) });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ access_token: 'token-1', expires_in: 3600, token_type: 'Bearer' }),
        );
        return;
      }
      calls.push({
        path,
        authorization: request.headers.authorization,
        body: JSON.parse(raw) as Record<string, unknown>,
      });
      const orderId = path.split('/')[2];
      if (path.endsWith('/place-order-session/start')) {
        response.writeHead(sessionStatus.value, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            sessionStatus.value === 200
              ? {
                  id: orderId,
                  items: [
                    {
                      id: 'i1',
                      type: 'menuItem',
                      title: 'Pizza',
                      quantity: 2,
                      mappingDetails: { plu: '0042' },
                    },
                  ],
                  storeDetails: { mappingDetails: { site: '7' } },
                }
              : { code: 'order.not_ready', detail: 'not ready' },
          ),
        );
        return;
      }
      const outage = reportOutage.shift();
      if (outage !== undefined) {
        response.writeHead(outage, { 'content-type': 'text/html', 'retry-after': '0' });
        response.end('<html>unavailable</html>');
        return;
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    sessionStatus,
    reportOutage,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function readyEvent(orderId: string) {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: '/comanda/orders',
    type: 'order.ready_to_be_placed_in_pos',
    time: new Date().toISOString(),
    subject: orderId,
    datacontenttype: 'application/json',
    tenantid: 'tenant-a',
    data: { orderId, storeId: 'store-1' },
  };
}

const quiet = { info: () => undefined, warn: () => undefined };

describe('reference POS adapter', () => {
  let comanda: Awaited<ReturnType<typeof fakeComanda>>;
  let broker: TestBroker;
  let adapter: RunningAdapter | undefined;

  function config(overrides: Record<string, string> = {}): AdapterConfig {
    return loadConfig({
      COMANDA_API_URL: comanda.url,
      COMANDA_TENANT_ID: 'tenant-a',
      COMANDA_CLIENT_ID: 'pos-client',
      COMANDA_CLIENT_SECRET: 'pos-secret',
      POS_DELAY_MS: '10',
      ...overrides,
    });
  }
  const reportsFor = (orderId: string) =>
    comanda.calls.filter((call) => call.path.startsWith(`/orders/${orderId}/pos/`));

  beforeAll(async () => {
    comanda = await fakeComanda();
    broker = await createTestBroker('pos-adapter');
  });
  afterEach(async () => {
    await adapter?.close();
    adapter = undefined;
    comanda.sessionStatus.value = 200;
    comanda.reportOutage.length = 0;
  });
  afterAll(async () => {
    const connection = await amqp.connect(broker.url);
    const channel = await connection.createChannel();
    await channel.deleteQueue(`${broker.queuePrefix}pos`);
    await channel.deleteExchange(broker.exchange);
    await connection.close();
    await comanda.close();
  });

  /** Starts the adapter with webhook delivery and delivers `orderId`'s event, signed. */
  async function deliverByWebhook(orderId: string): Promise<number> {
    adapter = await startAdapter(
      config({ WEBHOOK_SECRET: 'whsec_test', WEBHOOK_PORT: '0', WEBHOOK_HOST: '127.0.0.1' }),
      quiet,
    );
    const body = JSON.stringify(readyEvent(orderId));
    const answer = await fetch(`http://127.0.0.1:${adapter.webhookPort}/comanda/events`, {
      method: 'POST',
      headers: { 'comanda-signature': signBody('whsec_test', body) },
      body,
    });
    return answer.status;
  }

  it('reads its configuration once and says what is missing', () => {
    expect(() => loadConfig({})).toThrow(/COMANDA_API_URL is required[\s\S]*set AMQP_URL/);
    expect(() =>
      loadConfig({ ...baseEnv(), WEBHOOK_SECRET: 's', POS_OUTCOME: 'maybe', POS_DELAY_MS: '-1' }),
    ).toThrow(/POS_OUTCOME must be[\s\S]*POS_DELAY_MS must be/);
    expect(loadConfig({ ...baseEnv(), AMQP_URL: 'amqp://x' })).toMatchObject({
      tokenUrl: 'https://api.example/auth/t1/connect/token',
      rabbitmq: { exchange: 'comanda.events', queue: 'pos-adapter.t1' },
      webhook: undefined,
      pos: { outcome: 'success', delayMs: 500 },
    });
  });

  it('derives one session id per event, a UUID', () => {
    expect(sessionIdFor('e-1')).toBe(sessionIdFor('e-1'));
    expect(sessionIdFor('e-1')).not.toBe(sessionIdFor('e-2'));
    expect(sessionIdFor('e-1')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('verifies Comanda-Signature over the raw body within five minutes', () => {
    const body = Buffer.from('{"a":1}');
    const now = Date.now();
    expect(verify(signBody('s3cret', body), body, 's3cret', now)).toBe(true);
    expect(verify(signBody('other', body), body, 's3cret', now)).toBe(false);
    expect(verify(signBody('s3cret', body), Buffer.from('{"a":2}'), 's3cret', now)).toBe(false);
    expect(verify(signBody('s3cret', body, now / 1000 - 301), body, 's3cret', now)).toBe(false);
    expect(verify(undefined, body, 's3cret', now)).toBe(false);
    expect(verify('t=1,v1=zz', body, 's3cret', now)).toBe(false);
  });

  it('places an order taken from its own queue bound to the tenant routing key (real RabbitMQ)', async () => {
    adapter = await startAdapter(
      config({
        AMQP_URL: broker.url,
        AMQP_EXCHANGE: broker.exchange,
        POS_QUEUE: `${broker.queuePrefix}pos`,
      }),
      quiet,
    );
    const connection = await amqp.connect(broker.url);
    const channel = await connection.createConfirmChannel();
    const event = readyEvent('order-mq');
    channel.publish(
      broker.exchange,
      'order.ready_to_be_placed_in_pos.tenant-a',
      Buffer.from(JSON.stringify(event)),
    );
    channel.publish(
      broker.exchange,
      'order.ready_to_be_placed_in_pos.tenant-b',
      Buffer.from(JSON.stringify({ ...readyEvent('order-other-tenant'), tenantid: 'tenant-b' })),
    );
    await channel.waitForConfirms();
    await connection.close();

    const [placed] = await waitFor(
      'the placed report',
      () => reportsFor('order-mq').length > 0 && reportsFor('order-mq'),
    );
    const start = comanda.calls.find(
      (call) => call.path === '/orders/order-mq/place-order-session/start',
    );
    expect(start).toMatchObject({
      authorization: 'Bearer token-1',
      body: { placeOrderSessionId: sessionIdFor(event.id) },
    });
    expect(placed).toMatchObject({
      path: '/orders/order-mq/pos/placed',
      body: {
        orderName: expect.stringMatching(/^Check \d{4}$/),
        datePlaced: expect.any(String),
        estimatedReadyTime: expect.any(String),
        orderRefsDict: { posOrderId: expect.stringMatching(/^sim-/) },
        receipt: expect.stringContaining('2 x Pizza [0042]'),
      },
    });
    expect(comanda.calls.find((call) => call.path.includes('order-other-tenant'))).toBeUndefined();
    expect(comanda.calls.find((call) => call.path.endsWith('/connect/token'))?.body).toMatchObject({
      grant_type: 'client_credentials',
      client_id: 'pos-client',
      client_secret: 'pos-secret',
      scope: 'orders:placement',
    });
  });

  it('takes a signed webhook delivery, refuses a bad signature, and reports the failure the simulated POS answers', async () => {
    adapter = await startAdapter(
      config({
        WEBHOOK_SECRET: 'whsec_test',
        WEBHOOK_PORT: '0',
        WEBHOOK_HOST: '127.0.0.1',
        POS_OUTCOME: 'failure',
      }),
      quiet,
    );
    const endpoint = `http://127.0.0.1:${adapter.webhookPort}/comanda/events`;
    const body = JSON.stringify(readyEvent('order-hook'));
    const post = (signature: string) =>
      fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'comanda-signature': signature },
        body,
      });

    expect((await post(signBody('whsec_wrong', body))).status).toBe(401);
    expect((await post(signBody('whsec_test', body))).status).toBe(202);
    expect((await post(signBody('whsec_test', body))).status).toBe(202);

    await waitFor('the failed report', () => reportsFor('order-hook').length > 0);
    expect(reportsFor('order-hook')).toEqual([
      expect.objectContaining({
        path: '/orders/order-hook/pos/failed',
        body: { code: 'pos.simulated.rejected', message: 'The simulated POS rejected the order.' },
      }),
    ]);
    expect(
      comanda.calls.filter((call) => call.path === '/orders/order-hook/place-order-session/start'),
    ).toHaveLength(1);
  });

  it('sends a report again while Comanda answers 503 or 502, once the POS has the order', async () => {
    comanda.reportOutage.push(503, 502, 503);
    expect(await deliverByWebhook('order-outage')).toBe(202);

    await waitFor('the report to go through', () => reportsFor('order-outage').length === 4);
    expect(reportsFor('order-outage').map((call) => call.path)).toEqual(
      Array(4).fill('/orders/order-outage/pos/placed'),
    );
    // The same report each time, and one session: the POS got the order once.
    expect(new Set(reportsFor('order-outage').map((call) => JSON.stringify(call.body))).size).toBe(
      1,
    );
    expect(
      comanda.calls.filter(
        (call) => call.path === '/orders/order-outage/place-order-session/start',
      ),
    ).toHaveLength(1);
  });

  it('reports nothing for an order Comanda says is not ready (409)', async () => {
    comanda.sessionStatus.value = 409;
    expect(await deliverByWebhook('order-not-ready')).toBe(202);
    await waitFor('the session start', () =>
      comanda.calls.some(
        (call) => call.path === '/orders/order-not-ready/place-order-session/start',
      ),
    );
    expect(reportsFor('order-not-ready')).toEqual([]);
  });
});

function baseEnv(): Record<string, string> {
  return {
    COMANDA_API_URL: 'https://api.example/',
    COMANDA_TENANT_ID: 't1',
    COMANDA_CLIENT_ID: 'c',
    COMANDA_CLIENT_SECRET: 's',
  };
}
