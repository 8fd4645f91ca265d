import { EventTypes } from '@comanda/contracts';
import {
  createTestBroker,
  createTestDatabase,
  waitFor,
  type TestBroker,
  type TestDatabase,
  TcpProxy,
} from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { Inbox } from '../inbox/inbox.service';
import { OutboxRelay } from '../outbox/outbox.relay';
import { OutboxWriter } from '../outbox/outbox.writer';
import {
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  recordEffect,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { deadLetterQueueName } from '../rabbitmq/queue-names';
import { RabbitMqBus } from '../rabbitmq/rabbitmq-bus';
import { BrokerAdmin } from '../rabbitmq/test-support/broker-admin';

/** How long RabbitMQ stays "down" for the service: its every connection goes through a proxy. */
const OUTAGE_MS = 60_000;
const QUEUE = 'svc.apply';

jest.setTimeout(OUTAGE_MS + 120_000);

/** Keeps the fault in place for its duration: the outage itself, not a wait for a condition. */
const outageLasts = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a RabbitMQ outage of 60 s', () => {
  let db: TestDatabase;
  let broker: TestBroker;
  let admin: BrokerAdmin;
  let proxy: TcpProxy;
  let ds: DataSource;
  let bus: RabbitMqBus;
  let relay: OutboxRelay;

  beforeAll(async () => {
    db = await createTestDatabase('broker_outage');
    broker = await createTestBroker('broker-outage');
    admin = await BrokerAdmin.connect(broker.url);
    const queue = `${broker.queuePrefix}${QUEUE}`;
    admin.track(queue, deadLetterQueueName(queue));
    proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    ds = await openServiceDatabase(db.url);
    bus = new RabbitMqBus({
      url: proxy.urlFor(broker.url),
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      reconnectDelayMs: 500,
      publishTimeoutMs: 2_000,
      closeTimeoutMs: 2_000,
    });
  });

  afterAll(async () => {
    proxy.comeBack();
    await relay?.stop();
    await bus?.close();
    await proxy?.stop();
    await admin?.dispose(broker.exchange);
    await ds?.destroy();
    await db?.drop();
  });

  it('lets the outbox grow, loses nothing, counts no attempt, and drains everything after', async () => {
    const options = messagingOptions();
    const writer = new OutboxWriter(options);
    const inbox = new Inbox(ds, options);
    await bus.declare([
      { queue: QUEUE, eventTypes: [EventTypes.ConfigUpdated], retry: { delaysMs: [] } },
    ]);
    await bus.subscribe({
      queue: QUEUE,
      eventTypes: [EventTypes.ConfigUpdated],
      retry: { delaysMs: [] },
      probe: () => inbox.ping(),
      handler: (message) =>
        inbox
          .handleOnce(QUEUE, message.event, (tx) => recordEffect(tx, QUEUE, message.event))
          .then(() => undefined),
    });
    relay = new OutboxRelay(ds, bus, options);
    relay.start();
    const ids: string[] = [];
    const write = async (n: number) => {
      const event = await ds.transaction((tx) => writer.add(tx, configUpdated(`cfg-${n % 4}`, n)));
      ids.push(event.id);
    };
    const applied = async () => {
      const rows: Array<{ event_id: string; n: number }> = await ds.query(
        `SELECT event_id, count(*)::int AS n FROM "${SCHEMA}"."effects" GROUP BY event_id`,
      );
      return new Map(rows.map((row) => [row.event_id, row.n]));
    };
    const unpublished = async () => {
      const [row] = await ds.query(
        `SELECT count(*)::int AS n, coalesce(max(attempts), 0) AS attempts,
                count(dead_at)::int AS dead
         FROM "${SCHEMA}"."outbox" WHERE published_at IS NULL`,
      );
      return row as { n: number; attempts: number; dead: number };
    };

    for (let n = 0; n < 10; n++) await write(n);
    await waitFor('the first events applied', async () => (await applied()).size === 10);

    proxy.goDown();
    for (let n = 10; n < 20; n++) await write(n);
    await outageLasts(OUTAGE_MS / 2);
    for (let n = 20; n < 30; n++) await write(n);
    await outageLasts(OUTAGE_MS / 2);
    expect(bus.isReady()).toBe(false);
    // The outbox grew by everything written meanwhile, and nothing was counted or parked.
    expect(await unpublished()).toEqual({ n: 20, attempts: 0, dead: 0 });
    proxy.comeBack();

    const after = await waitFor(
      'every event applied after the outage',
      async () => {
        const map = await applied();
        return map.size === ids.length ? map : undefined;
      },
      { timeoutMs: 60_000 },
    );
    for (const id of ids) expect(after.get(id)).toBe(1);
    await waitFor('the outbox drained', async () => (await unpublished()).n === 0);
    expect(await admin.messageCount(deadLetterQueueName(`${broker.queuePrefix}${QUEUE}`))).toBe(0);
  });
});
