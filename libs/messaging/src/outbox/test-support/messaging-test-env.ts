import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { openDatabase } from '@comanda/persistence';
import { createTestBroker } from '@comanda/testing';
import { Global, Module, type Type } from '@nestjs/common';
import { DataSource, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import {
  MESSAGE_BUS,
  type MessageBus,
  type MessageHeaders,
  type Subscription,
  type SubscriptionHandle,
} from '../../bus/message-bus';
import { InProcessBus } from '../../in-process/in-process-bus';
import type { MessagingOptions } from '../../messaging.options';
import { MESSAGING_MIGRATIONS } from '../../migrations/messaging.migrations';
import { deadLetterQueueName, retryQueueName } from '../../rabbitmq/queue-names';
import { RabbitMqBus } from '../../rabbitmq/rabbitmq-bus';
import { BrokerAdmin } from '../../rabbitmq/test-support/broker-admin';

export const SCHEMA = 'svc';

/** A table where consumers record their effects; no unique key, so a second effect shows. */
class CreateEffects1700000000010 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE "${SCHEMA}"."effects" (
      seq bigserial PRIMARY KEY, consumer text NOT NULL, event_id text NOT NULL,
      subject text NOT NULL, version integer NOT NULL)`);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${SCHEMA}"."effects"`);
  }
}

/** One replica's connection to the suite's database, migrated like a service's. */
export function openServiceDatabase(
  url: string,
  poolSize = 5,
  statementDeadlineMs?: number,
): Promise<DataSource> {
  return openDatabase({
    url,
    schema: SCHEMA,
    entities: [],
    migrations: [...MESSAGING_MIGRATIONS, CreateEffects1700000000010],
    poolSize,
    statementDeadlineMs,
  });
}

/** What the runtime gives a service's modules, global: its data source and its bus. */
export function coreModule(dataSource: DataSource, bus: MessageBus): Type {
  @Global()
  @Module({
    providers: [
      { provide: DataSource, useValue: dataSource },
      { provide: MESSAGE_BUS, useValue: bus },
    ],
    exports: [DataSource, MESSAGE_BUS],
  })
  class CoreModule {}
  return CoreModule;
}

export function messagingOptions(overrides: Partial<MessagingOptions> = {}): MessagingOptions {
  return {
    service: 'svc',
    schema: SCHEMA,
    relayPollMs: 50,
    timerPollMs: 50,
    ...overrides,
    relay: { leaseMs: 2_000, retryBaseMs: 50, retryMaxMs: 200, ...overrides.relay },
    timers: { leaseMs: 2_000, retryBaseMs: 50, retryMaxMs: 200, ...overrides.timers },
  };
}

export function configUpdated(subject: string, version: number) {
  return {
    type: EventTypes.ConfigUpdated,
    tenantId: 'tenant-a',
    subject,
    data: {
      entity: 'order-charges',
      configId: subject,
      version,
      publisher: 'client-1',
      deleted: false,
    },
  };
}

export async function recordEffect(
  manager: EntityManager,
  consumer: string,
  event: CloudEvent,
): Promise<void> {
  const data = event.data as { version: number };
  await manager.query(
    `INSERT INTO "${SCHEMA}"."effects" (consumer, event_id, subject, version) VALUES ($1, $2, $3, $4)`,
    [consumer, event.id, event.subject, data.version],
  );
}

export async function effectCount(dataSource: DataSource): Promise<number> {
  const [row] = await dataSource.query(`SELECT count(*)::int AS n FROM "${SCHEMA}"."effects"`);
  return (row as { n: number }).n;
}

/** The real bus of one kind, as the replicas of a suite see it. */
export interface BusUnderTest {
  /** One replica's bus: a new connection on RabbitMQ, the one shared bus in process. */
  connect(): MessageBus;
  /** Queue names this suite subscribes to, so they are removed afterwards. */
  track(queue: string, retryDelaysMs?: number[]): void;
  close(): Promise<void>;
}

export type BusKind = [name: string, create: (label: string) => Promise<BusUnderTest>];

export const BUS_KINDS: BusKind[] = [
  [
    'RabbitMQ',
    async (label) => {
      const broker = await createTestBroker(label);
      const admin = await BrokerAdmin.connect(broker.url);
      const buses: RabbitMqBus[] = [];
      return {
        connect: () => {
          const bus = new RabbitMqBus({
            url: broker.url,
            exchange: broker.exchange,
            queuePrefix: broker.queuePrefix,
            reconnectDelayMs: 100,
            publishTimeoutMs: 2_000,
          });
          buses.push(bus);
          return bus;
        },
        track: (queue, retryDelaysMs = []) => {
          const name = `${broker.queuePrefix}${queue}`;
          admin.track(
            name,
            deadLetterQueueName(name),
            ...retryDelaysMs.map((d) => retryQueueName(name, d)),
          );
        },
        close: async () => {
          await Promise.all(buses.map((bus) => bus.close()));
          await admin.dispose(broker.exchange);
        },
      };
    },
  ],
  [
    'in-process',
    async () => {
      const bus = new InProcessBus();
      return { connect: () => bus, track: () => undefined, close: () => bus.close() };
    },
  ],
];

/**
 * The real bus with a hook after each confirmed publish: the tests record publish order and
 * make a relay "die" between the broker's confirm and the outbox mark.
 */
export class ObservedBus implements MessageBus {
  /** While set, publishing rejects as a broker that refuses messages would. */
  refusing: string | undefined;
  rejected = 0;

  constructor(
    private readonly inner: MessageBus,
    private readonly afterPublish: (event: CloudEvent) => void | Promise<void> = () => undefined,
  ) {}

  async publish(event: CloudEvent, headers?: MessageHeaders): Promise<void> {
    if (this.refusing) {
      this.rejected += 1;
      throw new Error(this.refusing);
    }
    await this.inner.publish(event, headers);
    await this.afterPublish(event);
  }

  get flagsRedeliveries(): boolean | undefined {
    return this.inner.flagsRedeliveries;
  }

  get queuesInPublishOrder(): boolean | undefined {
    return this.inner.queuesInPublishOrder;
  }
  subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    return this.inner.subscribe(subscription);
  }

  isReady(): boolean {
    return this.inner.isReady();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
