import type { CloudEvent } from '@comanda/contracts';
import {
  createTestBroker,
  createTestDatabase,
  waitFor,
  type TestDatabase,
  TcpProxy,
} from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { orderPlaced } from '../bus/message-bus.contract';
import type { MessageBus } from '../bus/message-bus';
import { InProcessBus } from '../in-process/in-process-bus';
import { Inbox } from '../inbox/inbox.service';
import {
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { deadLetterQueueName, retryQueueName } from '../rabbitmq/queue-names';
import { RabbitMqBus } from '../rabbitmq/rabbitmq-bus';
import { BrokerAdmin } from '../rabbitmq/test-support/broker-admin';

/** How long PostgreSQL stays "down": longer than the whole default retry schedule (36 s). */
const OUTAGE_MS = 90_000;
const QUEUE = 'outage.apply';

jest.setTimeout(OUTAGE_MS + 120_000);

/** Keeps the fault in place for its duration: the outage itself, not a wait for a condition. */
const outageLasts = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function event(n: number): CloudEvent {
  return orderPlaced('tenant-a', `order-${n}`);
}

async function appliedEvents(checker: DataSource): Promise<Map<string, number>> {
  const rows: Array<{ event_id: string; n: number }> = await checker.query(
    `SELECT event_id, count(*)::int AS n FROM "${SCHEMA}"."effects" GROUP BY event_id`,
  );
  return new Map(rows.map((row) => [row.event_id, row.n]));
}

describe.each(['RabbitMQ', 'in-process'] as const)(
  'a PostgreSQL outage of %s consumers',
  (kind) => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let consumerDb: DataSource;
    let checker: DataSource;
    let bus: MessageBus;
    let deadLetters: () => Promise<number>;
    let dispose: () => Promise<void> = async () => undefined;

    beforeAll(async () => {
      database = await createTestDatabase(`pg-outage-${kind}`);
      checker = await openServiceDatabase(database.url);
      const target = new URL(database.url);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      const viaProxy = new URL(database.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      consumerDb = await openServiceDatabase(viaProxy.toString());
      if (kind === 'RabbitMQ') {
        const broker = await createTestBroker('pg-outage');
        const admin = await BrokerAdmin.connect(broker.url);
        const name = `${broker.queuePrefix}${QUEUE}`;
        admin.track(name, deadLetterQueueName(name));
        const rabbit = new RabbitMqBus({
          url: broker.url,
          exchange: broker.exchange,
          queuePrefix: broker.queuePrefix,
        });
        bus = rabbit;
        deadLetters = () => admin.messageCount(deadLetterQueueName(name));
        dispose = async () => {
          await rabbit.close();
          for (const delay of [1_000, 5_000, 30_000]) admin.track(retryQueueName(name, delay));
          await admin.dispose(broker.exchange);
        };
      } else {
        const inProcess = new InProcessBus();
        bus = inProcess;
        deadLetters = async () => inProcess.deadLetters(QUEUE).length;
        dispose = () => inProcess.close();
      }
    });

    afterAll(async () => {
      proxy.comeBack();
      await dispose();
      await consumerDb?.destroy().catch(() => undefined);
      await checker?.destroy();
      await proxy?.stop();
      await database?.drop();
    });

    it('pauses the consumer for 90 s instead of dead-lettering, then applies every event once', async () => {
      const inbox = new Inbox(consumerDb, messagingOptions());
      // The default retry policy (1 s, 5 s, 30 s): an outage counted as attempts would
      // dead-letter everything consumed after 36 s.
      await bus.subscribe({
        queue: QUEUE,
        eventTypes: ['order.placed'],
        probe: () => inbox.ping(),
        handler: async (message) => {
          await inbox.handleOnce(QUEUE, message.event, async (tx) => {
            await tx.query(
              `INSERT INTO "${SCHEMA}"."effects" (consumer, event_id, subject, version) VALUES ($1, $2, $3, 1)`,
              [QUEUE, message.event.id, message.event.subject],
            );
          });
        },
      });
      const published: CloudEvent[] = [];
      // The in-process bus settles a publish only once it was handled: not awaited here.
      const publishing: Array<Promise<void>> = [];
      const publish = (n: number) => {
        const e = event(n);
        published.push(e);
        publishing.push(bus.publish(e));
      };

      for (let n = 0; n < 10; n++) publish(n);
      await waitFor(
        'the first events applied',
        async () => (await appliedEvents(checker)).size === 10,
      );

      proxy.goDown();
      for (let n = 10; n < 20; n++) publish(n);
      await outageLasts(OUTAGE_MS / 2);
      for (let n = 20; n < 30; n++) publish(n);
      await outageLasts(OUTAGE_MS / 2);
      expect(await deadLetters()).toBe(0);
      proxy.comeBack();

      const applied = await waitFor(
        'every event applied after the outage',
        async () => {
          const map = await appliedEvents(checker);
          return map.size === published.length ? map : undefined;
        },
        { timeoutMs: 60_000 },
      );
      await Promise.all(publishing);
      for (const e of published) expect(applied.get(e.id)).toBe(1);
      expect(await deadLetters()).toBe(0);
    });
  },
);
