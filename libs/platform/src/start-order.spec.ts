import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Module } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent, type ConsumerDeclaration } from '@comanda/contracts';
import {
  BusContext,
  MESSAGING_MIGRATIONS,
  OnEvent,
  OutboxWriter,
  RabbitMqBus,
  type MessagingOptions,
} from '@comanda/messaging';
import { openDatabase, schemaOf } from '@comanda/persistence';
import { startService, type ServiceDefinition } from '@comanda/runtime';
import {
  createTestBroker,
  createTestDatabase,
  disposeTestBroker,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { startPlatform } from './start-platform';

/** Two services that each publish `config.updated` and each consume it into `applied`. */
class CreateApplied1800000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE "${schemaOf(runner)}".applied (event_id text NOT NULL, subject text NOT NULL)`,
    );
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${schemaOf(runner)}".applied`);
  }
}

function counterService(name: string): ServiceDefinition {
  const schema = name.replace(/-/g, '_');
  @Controller()
  class ApplyHandlers {
    @OnEvent(EventTypes.ConfigUpdated, { consumer: 'apply' })
    async apply(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
      await ctx
        .getTransaction()
        .query(`INSERT INTO "${schema}".applied (event_id, subject) VALUES ($1, $2)`, [
          event.id,
          event.subject,
        ]);
    }
  }
  @Module({ controllers: [ApplyHandlers] })
  class CounterModule {}
  return {
    name,
    database: { schema, entities: [], migrations: [CreateApplied1800000000000] },
    module: CounterModule,
    security: false,
  };
}

@Module({})
class NoHandlersModule {}

const SERVICES = ['so-one', 'so-two'];
const definitions = SERVICES.map(counterService);
const topology: ConsumerDeclaration[] = SERVICES.map((service) => ({
  service,
  consumer: 'apply',
  eventTypes: [EventTypes.ConfigUpdated],
}));

/** Writes `count` events into a service's outbox while nothing runs: a backlog. */
async function writeBacklog(url: string, service: string, count: number): Promise<string[]> {
  const schema = service.replace(/-/g, '_');
  const dataSource = await openDatabase({
    url,
    schema,
    entities: [],
    migrations: [...MESSAGING_MIGRATIONS],
  });
  const options: MessagingOptions = { service, schema };
  const writer = new OutboxWriter(options);
  const ids: string[] = [];
  try {
    await dataSource.transaction(async (tx) => {
      for (let n = 0; n < count; n++) {
        const event = await writer.add(tx, {
          type: EventTypes.ConfigUpdated,
          tenantId: 'tenant-a',
          subject: `${service}-${n}`,
          data: {
            entity: 'order-charges',
            configId: `${service}-${n}`,
            version: 1,
            publisher: 'test',
            deleted: false,
          },
        });
        ids.push(event.id);
      }
    });
  } finally {
    await dataSource.destroy();
  }
  return ids;
}

async function appliedBy(url: string, service: string): Promise<Map<string, number>> {
  const schema = service.replace(/-/g, '_');
  const dataSource = await openDatabase({ url, schema, entities: [], migrations: [] });
  try {
    const rows: Array<{ event_id: string; n: number }> = await dataSource.query(
      `SELECT event_id, count(*)::int AS n FROM "${schema}".applied GROUP BY event_id`,
    );
    return new Map(rows.map((row) => [row.event_id, row.n]));
  } finally {
    await dataSource.destroy();
  }
}

describe.each(['in-process', 'RabbitMQ'] as const)('standalone start order (%s bus)', (kind) => {
  let database: TestDatabase;
  let broker: TestBroker | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'comanda-start-order-'));

  beforeAll(async () => {
    database = await createTestDatabase(`start_order_${kind}`);
    if (kind === 'RabbitMQ') broker = await createTestBroker('start-order');
  });

  afterAll(async () => {
    if (broker)
      await disposeTestBroker(
        broker,
        SERVICES.map((service) => `${service}.apply`),
      );
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({
    DATABASE_URL: database.url,
    COMANDA_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    OUTBOX_POLL_MS: '100',
    ...(broker ? { AMQP_URL: broker.url, AMQP_EXCHANGE: broker.exchange } : {}),
  });

  it('delivers every event of a backlog left in every outbox at the last stop', async () => {
    const first = await startPlatform({ port: 0, env: env(), services: definitions, topology });
    await first.close();

    const backlog = (
      await Promise.all(SERVICES.map((service) => writeBacklog(database.url, service, 10)))
    ).flat();

    // The first service's relay would publish its backlog before the second subscribed, if
    // relays started with their service.
    const second = await startPlatform({ port: 0, env: env(), services: definitions, topology });
    try {
      for (const service of SERVICES) {
        const applied = await waitFor(`${service} to apply the whole backlog`, async () => {
          const map = await appliedBy(database.url, service);
          return map.size === backlog.length ? map : undefined;
        });
        for (const id of backlog) expect(applied.get(id)).toBe(1);
      }
    } finally {
      await second.close();
    }
  });
});

describe('a consumer started after its producer published (distributed mode)', () => {
  it('still gets every event: the producer declared its queue before publishing', async () => {
    const database = await createTestDatabase('late_consumer');
    const broker = await createTestBroker('late-consumer');
    const [producer, consumer] = definitions;
    const busFor = (name: string) =>
      new RabbitMqBus({ url: broker.url, exchange: broker.exchange, connectionName: name });
    const producerBus = busFor('producer');
    const consumerBus = busFor('consumer');
    const env = { LOG_LEVEL: 'warn', OUTBOX_POLL_MS: '100' };
    // The producer runs alone; only its own consumer is in its process.
    const lateTopology = topology.filter((entry) => entry.service === consumer.name);
    const producerOnly: ServiceDefinition = { ...producer, module: NoHandlersModule };
    try {
      const running = await startService(producerOnly, {
        port: 0,
        databaseUrl: database.url,
        bus: producerBus,
        env,
        topology: lateTopology,
      });
      const ids = await writeBacklog(database.url, producer.name, 5);
      await waitFor('the producer to publish its events', async () => {
        const ds = await openDatabase({
          url: database.url,
          schema: 'so_one',
          entities: [],
          migrations: [],
        });
        try {
          const [row] = await ds.query(
            `SELECT count(*)::int AS n FROM so_one.outbox WHERE published_at IS NULL`,
          );
          return row.n === 0;
        } finally {
          await ds.destroy();
        }
      });

      const late = await startService(consumer, {
        port: 0,
        databaseUrl: database.url,
        bus: consumerBus,
        env,
        topology: lateTopology,
      });
      try {
        const applied = await waitFor('the late consumer to apply every event', async () => {
          const map = await appliedBy(database.url, consumer.name);
          return map.size === ids.length ? map : undefined;
        });
        for (const id of ids) expect(applied.get(id)).toBe(1);
      } finally {
        await late.close();
        await running.close();
      }
    } finally {
      await producerBus.close();
      await consumerBus.close();
      await disposeTestBroker(broker, [`${consumer.name}.apply`]);
      await database.drop();
    }
  });
});
