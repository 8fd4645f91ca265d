/**
 * `npm run bench:checkout` (also the second part of `npm run bench`): the latency from a
 * guest's checkout to the POS integration receiving `order.ready_to_be_placed_in_pos`,
 * against a hand-built chain doing the same hand-off in the same run (issue 10, item 4).
 *
 * 1. The platform as `npm start` runs it (bench/support/platform-server.ts) with
 *    DATABASE_URL and AMQP_URL, on a database and an exchange of its own; a tenant, a client
 *    with `catalog:write storefront orders:read`, a store and its menu; every basket made
 *    beforehand. Then, at a fixed rate (open loop: each request is launched on its schedule,
 *    whether the earlier ones have answered or not), `POST /baskets/{id}/checkout` through
 *    the gateway; a consumer queue of this process, bound to
 *    `order.ready_to_be_placed_in_pos.<tenant>`, takes the time each order's event arrives.
 * 2. The chain, at the same rate: in this process, `BEGIN; INSERT the event; NOTIFY; COMMIT`
 *    with `pg`; in a child process (bench/support/notify-chain.ts), LISTEN, read the row,
 *    publish it with amqplib on a confirm channel; the same kind of consumer receives it.
 * 3. Prints p50/p99 of both and the ratio of the platform's p99 to the chain's (target ≤ 1.5).
 *
 * Knobs: BENCH_CHECKOUT_RATE (per second, default 40), BENCH_CHECKOUT_SECONDS (15), each
 * after BENCH_CHECKOUT_WARM_UP_SECONDS (3) at the same rate that is not counted. Nothing is
 * asserted; the target is read off the output (see bench/README.md).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import { Pool } from 'pg';
import { Agent, request } from 'undici';
import { createCloudEvent, EventTypes, routingKeyOf } from '@comanda/contracts';
import {
  createTestBroker,
  createTestDatabase,
  disposePlatformBroker,
  type TestDatabase,
} from '@comanda/testing';
import { provisionClient, type ProvisionedClient } from '../apps/platform-e2e/src/support/clients';
import type { TestPlatform } from '../apps/platform-e2e/src/support/platform';
import { childLog, processCpuMs, startChild, stopChild, withProfile } from './support/children';
import { GUEST, seedStore, type OrdersTenant } from '../apps/platform-e2e/src/orders/orders-api';

const RATE = Number(process.env.BENCH_CHECKOUT_RATE ?? '40');
const SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? '15');
const WARM_UP_SECONDS = Number(process.env.BENCH_CHECKOUT_WARM_UP_SECONDS ?? '3');
/** Each side's measured time is cut into this many windows, taken in turn with the other's. */
const ROUNDS = Number(process.env.BENCH_CHECKOUT_ROUNDS ?? '3');
/** How long after the last send an event may still arrive before it counts as lost. */
const DRAIN_MS = 10_000;
const TENANT = `bench-${randomBytes(3).toString('hex')}`;
const CHAIN_TENANT = 'bench-chain';
const LOG_PREFIX = 'comanda-bench-checkout';
// The platform writes its profiles there; a missing directory would leave the run waiting.
if (process.env.BENCH_PROFILE) mkdirSync(process.env.BENCH_PROFILE, { recursive: true });

interface Measurement {
  latencies: number[];
  sent: number;
  lost: number;
  failed: number;
  /** The latest any send left after its scheduled time (the open loop's own lag). */
  maxLagMs: number;
  /** CPU time its own process (the platform, the chain's relay) used per event, in ms. */
  cpuMsPerEvent?: number;
  /** The platform only: time to the checkout's 202, sorted. */
  answered?: number[];
  /** The platform only: from the 202 to the event at the consumer, sorted (< 0: event first). */
  afterAnswer?: number[];
}

/**
 * Launches `send(i)` for i = 0 … rate × seconds − 1 at start + i / rate, never waiting for
 * an earlier send to finish (open loop); resolves once every send has settled.
 */
async function openLoop(
  rate: number,
  seconds: number,
  send: (index: number) => Promise<void>,
): Promise<number> {
  const count = Math.round(rate * seconds);
  const start = performance.now() + 5;
  const pending: Promise<void>[] = [];
  let maxLagMs = 0;
  for (let index = 0; index < count; index++) {
    const at = start + (index * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    maxLagMs = Math.max(maxLagMs, performance.now() - at);
    pending.push(send(index));
  }
  await Promise.allSettled(pending);
  return maxLagMs;
}

/**
 * An exclusive queue of this process on `exchange`, bound to `routingKey`: calls `arrived`
 * with each event's subject and the time it came in (no ack: the delivery is what counts).
 */
async function consume(
  channel: Channel,
  exchange: string,
  routingKey: string,
  arrived: (subject: string, at: number) => void,
): Promise<void> {
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, routingKey);
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const at = performance.now();
      arrived((JSON.parse(message.content.toString()) as { subject: string }).subject, at);
    },
    { noAck: true },
  );
}

/** Sent-at and arrived-at per key, matched up once the run is over. */
class Clock {
  readonly sentAt = new Map<string, number>();
  readonly arrivedAt = new Map<string, number>();
  failed = 0;

  async settle(keys: string[], maxLagMs: number): Promise<Measurement> {
    const deadline = performance.now() + DRAIN_MS;
    while (keys.some((key) => !this.arrivedAt.has(key)) && performance.now() < deadline) {
      await sleep(50);
    }
    const latencies = keys
      .filter((key) => this.arrivedAt.has(key))
      .map((key) => (this.arrivedAt.get(key) as number) - (this.sentAt.get(key) as number))
      .sort((a, b) => a - b);
    return {
      latencies,
      sent: keys.length,
      lost: keys.length - latencies.length,
      failed: this.failed,
      maxLagMs,
    };
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One side of the comparison: runs its open loop for `seconds` and measures it. */
interface Side {
  /** The process whose CPU time is counted per event. */
  pid: number | undefined;
  /** BENCH_PROFILE=<dir>: this process is profiled over its measured windows. */
  profiled?: { child: ChildProcess; name: string };
  measure(seconds: number): Promise<Measurement>;
  close(): Promise<void>;
}

function merge(a: Measurement | undefined, b: Measurement, cpu: number): Measurement {
  const sorted = (x: number[] = [], y: number[] = []) => [...x, ...y].sort((m, n) => m - n);
  return {
    latencies: sorted(a?.latencies, b.latencies),
    sent: (a?.sent ?? 0) + b.sent,
    lost: (a?.lost ?? 0) + b.lost,
    failed: (a?.failed ?? 0) + b.failed,
    maxLagMs: Math.max(a?.maxLagMs ?? 0, b.maxLagMs),
    cpuMsPerEvent: (a?.cpuMsPerEvent ?? 0) + cpu,
    answered: sorted(a?.answered, b.answered),
    afterAnswer: sorted(a?.afterAnswer, b.afterAnswer),
  };
}

/**
 * Warms both sides up (not counted), then measures them in turn, ROUNDS windows each, so
 * that the changing load of a shared machine falls on both alike; adds the CPU time each
 * side's process spent per event.
 */
async function interleaved(sides: Side[]): Promise<Measurement[]> {
  for (const side of sides) if (WARM_UP_SECONDS > 0) await side.measure(WARM_UP_SECONDS);
  const results: (Measurement | undefined)[] = sides.map(() => undefined);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, side] of sides.entries()) {
      const before = processCpuMs(side.pid).total;
      const file =
        side.profiled && process.env.BENCH_PROFILE
          ? join(process.env.BENCH_PROFILE, `${side.profiled.name}-${round + 1}.cpuprofile`)
          : undefined;
      const measure = () => side.measure(SECONDS / ROUNDS);
      const measured =
        side.profiled && file
          ? await withProfile(side.profiled.child, file, measure)
          : await measure();
      results[index] = merge(results[index], measured, processCpuMs(side.pid).total - before);
    }
  }
  return results.map((result) => {
    const total = result as Measurement;
    return {
      ...total,
      cpuMsPerEvent: (total.cpuMsPerEvent ?? 0) / Math.max(1, total.latencies.length),
    };
  });
}

// ---------------------------------------------------------------- the platform

/** The one client of the brief, calling the gateway with every permission it holds. */
function tenantOf(baseUrl: string, client: ProvisionedClient, agent: Agent): OrdersTenant {
  return {
    tenantId: client.tenantId,
    client: () => Promise.resolve(client),
    async as(_permissions, method, path, body) {
      const response = await request(`${baseUrl}${path}`, {
        method: method as 'GET',
        dispatcher: agent,
        headers: {
          authorization: `Bearer ${await client.token()}`,
          'x-api-version': '0',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        headers: new Headers(),
        text,
        json: (text ? JSON.parse(text) : undefined) as never,
      };
    },
  };
}

/** A basket with one burger, ready to check out; made before the measured window. */
async function basket(tenant: OrdersTenant, storeId: string): Promise<string> {
  const created = await tenant.as<{ id: string }>(['storefront'], 'POST', '/baskets', {
    storeId,
    fulfillment: 'pickup',
    guest: GUEST,
  });
  if (created.status !== 201) throw new Error(`basket: ${created.status} ${created.text}`);
  const item = await tenant.as(['storefront'], 'POST', `/baskets/${created.json.id}/items`, {
    menuItemId: 'burger',
    quantity: 1,
  });
  if (item.status !== 201) throw new Error(`item: ${item.status} ${item.text}`);
  return created.json.id;
}

async function baskets(tenant: OrdersTenant, storeId: string, count: number): Promise<string[]> {
  const made: string[] = [];
  const worker = async () => {
    while (made.length < count) {
      const index = made.push('') - 1;
      made[index] = await basket(tenant, storeId);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return made.slice(0, count);
}

async function platformSide(
  pid: number | undefined,
  platformUrl: string,
  admin: TestPlatform['admin'],
  exchange: string,
  channel: Channel,
): Promise<Side> {
  const handle = { baseUrl: platformUrl, admin } as unknown as TestPlatform;
  const client = await provisionClient(handle, {
    tenantId: TENANT,
    permissions: ['catalog:write', 'storefront', 'orders:read'],
  });
  const agent = new Agent({ connections: 256, pipelining: 1 });
  const tenant = tenantOf(platformUrl, client, agent);
  const storeId = await seedStore(tenant);
  const pool = await baskets(
    tenant,
    storeId,
    Math.round(RATE * WARM_UP_SECONDS) + ROUNDS * Math.round((RATE * SECONDS) / ROUNDS),
  );
  const token = await client.token();

  const clock = new Clock();
  const orderOfBasket = new Map<string, string>();
  let answered: number[] = [];
  const answeredAt = new Map<string, number>();
  await consume(
    channel,
    exchange,
    `${EventTypes.OrderReadyToBePlacedInPos}.${TENANT}`,
    (orderId, at) => clock.arrivedAt.set(orderId, at),
  );
  let next = 0;
  const measure = async (seconds: number): Promise<Measurement> => {
    const window = pool.slice(next, next + Math.round(RATE * seconds));
    next += window.length;
    clock.failed = 0;
    answered = [];
    const maxLagMs = await openLoop(RATE, seconds, async (index) => {
      const basketId = window[index];
      const sentAt = performance.now();
      try {
        const response = await request(`${platformUrl}/baskets/${basketId}/checkout`, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            authorization: `Bearer ${token}`,
            'x-api-version': '0',
            'content-type': 'application/json',
          },
          body: '{}',
        });
        const text = await response.body.text();
        if (response.statusCode !== 202) throw new Error(`${response.statusCode} ${text}`);
        const now = performance.now();
        answered.push(now - sentAt);
        const orderId = (JSON.parse(text) as { orderId: string }).orderId;
        answeredAt.set(orderId, now);
        orderOfBasket.set(basketId, orderId);
        clock.sentAt.set(orderId, sentAt);
      } catch (error) {
        clock.failed++;
        if (clock.failed === 1) console.error(`checkout failed: ${String(error)}`);
      }
    });
    const orders = window.flatMap((id) => orderOfBasket.get(id) ?? []);
    const measured = await clock.settle(orders, maxLagMs);
    const afterAnswer = orders
      .filter((id) => clock.arrivedAt.has(id))
      .map((id) => (clock.arrivedAt.get(id) as number) - (answeredAt.get(id) as number));
    return {
      ...measured,
      answered: answered.sort((a, b) => a - b),
      afterAnswer: afterAnswer.sort((a, b) => a - b),
    };
  };
  return { pid, measure, close: () => agent.close() };
}

// ---------------------------------------------------------------- the chain

async function chainSide(
  pid: number | undefined,
  database: TestDatabase,
  exchange: string,
  channel: Channel,
  routingKeyOfChain: string,
): Promise<Side> {
  const pool = new Pool({ connectionString: database.url, max: 10 });
  const clock = new Clock();
  await consume(channel, exchange, routingKeyOfChain, (subject, at) =>
    clock.arrivedAt.set(subject, at),
  );
  const measure = async (seconds: number): Promise<Measurement> => {
    const keys: string[] = [];
    clock.failed = 0;
    const maxLagMs = await openLoop(RATE, seconds, async () => {
      // The same envelope the platform publishes, so both carry as many bytes.
      const event = createCloudEvent('/comanda/orders', {
        type: EventTypes.OrderReadyToBePlacedInPos,
        tenantId: CHAIN_TENANT,
        subject: randomUUID(),
        data: { orderId: randomUUID(), storeId: 'store-0000000' },
      });
      const sentAt = performance.now();
      const connection = await pool.connect();
      try {
        await connection.query('BEGIN');
        const { rows } = await connection.query<{ id: string }>(
          'INSERT INTO bench_chain.outbox (routing_key, event) VALUES ($1, $2) RETURNING id',
          [routingKeyOf(event), JSON.stringify(event)],
        );
        await connection.query('SELECT pg_notify($1, $2)', ['bench_chain', rows[0].id]);
        await connection.query('COMMIT');
        clock.sentAt.set(event.subject, sentAt);
        keys.push(event.subject);
      } catch (error) {
        clock.failed++;
        await connection.query('ROLLBACK').catch(() => undefined);
        if (clock.failed === 1) console.error(`chain insert failed: ${String(error)}`);
      } finally {
        connection.release();
      }
    });
    return clock.settle(keys, maxLagMs);
  };
  return { pid, measure, close: () => pool.end() };
}

// ---------------------------------------------------------------- the run

function line(name: string, m: Measurement): string {
  const p50 = percentile(m.latencies, 50);
  const p99 = percentile(m.latencies, 99);
  return `${name.padEnd(44)} ${p50.toFixed(1).padStart(8)} ${p99.toFixed(1).padStart(8)} ${percentile(m.latencies, 100).toFixed(1).padStart(8)} ${String(m.latencies.length).padStart(9)} ${String(m.lost).padStart(5)} ${String(m.failed).padStart(7)} ${m.maxLagMs.toFixed(1).padStart(8)}`;
}

async function main(): Promise<void> {
  const broker = await createTestBroker('bench-checkout');
  const platformDatabase = await createTestDatabase('bench_checkout');
  const chainDatabase = await createTestDatabase('bench_chain');
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  let platform: ChildProcess | undefined;
  let chain: ChildProcess | undefined;
  let amqp: ChannelModel | undefined;
  try {
    amqp = await connect(broker.url);
    const channel = await amqp.createChannel();
    await channel.assertExchange(broker.exchange, 'topic', { durable: true });
    // The chain publishes the same event type, so on the platform's exchange the platform's
    // own consumers (orders' `webhooks`) would take it too: it gets an exchange of its own.
    const chainExchange = `${broker.exchange}.chain`;
    await channel.assertExchange(chainExchange, 'topic', { durable: true });

    const started = await startChild(
      'platform-server.ts',
      {
        DATABASE_URL: platformDatabase.url,
        AMQP_URL: broker.url,
        // Its own exchange and queue names on the shared broker (as the e2e tests do), so that
        // nothing else consumes its events and everything it declares can be removed after.
        AMQP_EXCHANGE: broker.exchange,
        AMQP_QUEUE_PREFIX: broker.queuePrefix,
        COMANDA_ENVIRONMENT: 'test',
        COMANDA_ADMIN_CLIENT_ID: admin.clientId,
        COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        GATEWAY_RATE_LIMIT_MAX: '100000000',
      },
      LOG_PREFIX,
    );
    platform = started.child;
    const platformSideOf = await platformSide(
      platform.pid,
      started.url,
      admin,
      broker.exchange,
      channel,
    );

    const setup = new Pool({ connectionString: chainDatabase.url, max: 1 });
    await setup.query('CREATE SCHEMA bench_chain');
    await setup.query(
      'CREATE TABLE bench_chain.outbox (id bigserial PRIMARY KEY, routing_key text NOT NULL, event jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    await setup.end();
    chain = (
      await startChild(
        'notify-chain.ts',
        {
          DATABASE_URL: chainDatabase.url,
          AMQP_URL: broker.url,
          AMQP_EXCHANGE: chainExchange,
        },
        LOG_PREFIX,
      )
    ).child;
    // The platform's ready event also lands in a durable queue (orders' `webhooks` consumer),
    // so the broker writes it to disk before it confirms; the chain's message does as well,
    // into a durable queue that a consumer here drains with acks, as orders drains its own.
    const durable = `${broker.queuePrefix}bench.chain-durable`;
    await channel.assertQueue(durable, { durable: true });
    await channel.bindQueue(
      durable,
      chainExchange,
      `${EventTypes.OrderReadyToBePlacedInPos}.${CHAIN_TENANT}`,
    );
    await channel.prefetch(20);
    await channel.consume(durable, (message) => message && channel.ack(message));
    const chainSideOf = await chainSide(
      chain.pid,
      chainDatabase,
      chainExchange,
      channel,
      `${EventTypes.OrderReadyToBePlacedInPos}.${CHAIN_TENANT}`,
    );
    // Both stay up the whole run; each idles while the other is measured.
    platformSideOf.profiled = { child: platform, name: 'checkout' };
    const [platformResult, chainResult] = await interleaved([platformSideOf, chainSideOf]);
    await platformSideOf.close();
    await chainSideOf.close();

    console.log(
      `\ncheckout → order.ready_to_be_placed_in_pos at a consumer: ${RATE}/s open loop, ${SECONDS} s measured each (${ROUNDS} windows, taken in turn) after ${WARM_UP_SECONDS} s of warm-up\n`,
    );
    console.log(
      `${'path'.padEnd(44)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'received'.padStart(9)} ${'lost'.padStart(5)} ${'failed'.padStart(7)} ${'lag ms'.padStart(8)}`,
    );
    console.log(line('platform: POST checkout → consumer', platformResult));
    console.log(line('chain: insert + NOTIFY → publish → consumer', chainResult));
    const answeredIn = platformResult.answered ?? [];
    const afterAnswer = platformResult.afterAnswer ?? [];
    console.log(
      `\nfor reading it, the platform's latency split at the checkout's 202: send → 202 p50 ${percentile(answeredIn, 50).toFixed(1)} ms, p99 ${percentile(answeredIn, 99).toFixed(1)} ms; 202 → event p50 ${percentile(afterAnswer, 50).toFixed(1)} ms, p99 ${percentile(afterAnswer, 99).toFixed(1)} ms`,
    );
    const ratio = percentile(platformResult.latencies, 99) / percentile(chainResult.latencies, 99);
    console.log(
      `\nplatform p99 / chain p99: ${ratio.toFixed(2)} (target ≤ 1.50); p50 ratio ${(
        percentile(platformResult.latencies, 50) / percentile(chainResult.latencies, 50)
      ).toFixed(2)}`,
    );
    console.log(
      `CPU of its own process per event: platform ${platformResult.cpuMsPerEvent?.toFixed(1)} ms per checkout (gateway, auth, orders, relay), chain's relay ${chainResult.cpuMsPerEvent?.toFixed(1)} ms per message`,
    );
    console.log(
      `platform start to ready ${(started.readyMs / 1000).toFixed(1)} s; platform log: ${childLog(LOG_PREFIX, 'platform-server.ts')}`,
    );
  } finally {
    await stopChild(platform);
    await stopChild(chain);
    if (amqp) {
      const cleanup = await amqp.createChannel();
      await cleanup.deleteExchange(`${broker.exchange}.chain`);
      await cleanup.close();
      await amqp.close();
    }
    await disposePlatformBroker(broker, [`${broker.queuePrefix}bench.chain-durable`]);
    await platformDatabase.drop();
    await chainDatabase.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
