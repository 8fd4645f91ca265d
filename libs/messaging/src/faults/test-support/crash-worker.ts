/**
 * A replica of a service for the crash tests, run as its own process (`node -r
 * @swc-node/register crash-worker.ts`): its outbox relay, a consumer and a timer handler that
 * record their effect; poison that kills the process (SIGKILL, as `kill -9` would)
 * mid-handling every time (`exit-*`), and events and timers that kill it once at a given
 * window (`kill-<window>-*`, remembered in the `kills` table so the next life goes on).
 * Configured by environment: WORKER_DATABASE_URL, WORKER_AMQP_URL, WORKER_EXCHANGE,
 * WORKER_QUEUE_PREFIX, WORKER_MAX_DELIVERIES, WORKER_TIMER_MAX_ATTEMPTS.
 */
import 'reflect-metadata';
import { Controller, Global, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import {
  MESSAGE_BUS,
  type MessageBus,
  type MessageHeaders,
  type QueueDeclaration,
  type Subscription,
  type SubscriptionHandle,
} from '../../bus/message-bus';
import { DeadLetterStore } from '../../dead-letters/dead-letter.store';
import { Inbox } from '../../inbox/inbox.service';
import { MessagingModule } from '../../messaging.module';
import { BusContext } from '../../nest/bus-context';
import { BusExceptionFilter } from '../../nest/bus-exception.filter';
import { BusServer, type InboxRunner } from '../../nest/bus-server';
import { OnEvent } from '../../nest/on-event.decorator';
import {
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from '../../outbox/test-support/messaging-test-env';
import { RabbitMqBus } from '../../rabbitmq/rabbitmq-bus';
import { OnTimer } from '../../timers/on-timer.decorator';
import type { FiredTimer } from '../../timers/timer.types';

export const CRASH_WORKER = {
  service: 'svc',
  consumer: 'apply',
  retryDelaysMs: [50],
  maxDeliveries: 3,
  timerName: 'crash-timer',
  timerMaxAttempts: 3,
  timerLeaseMs: 1_000,
} as const;

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

/** Kills the process the first time `window` is reached for `subject`. */
async function killOnce(dataSource: DataSource, window: string, subject: string): Promise<void> {
  if (!subject.startsWith(`kill-${window}-`)) return;
  const inserted: unknown[] = await dataSource.query(
    `INSERT INTO "${SCHEMA}"."kills" (name) VALUES ($1) ON CONFLICT DO NOTHING RETURNING name`,
    [subject],
  );
  if (inserted.length > 0) die();
}

/** The real bus, with a kill before and after a publish is confirmed (before the outbox mark). */
class KillingBus implements MessageBus {
  constructor(
    private readonly inner: MessageBus,
    private readonly dataSource: DataSource,
  ) {}
  async publish(event: CloudEvent, headers?: MessageHeaders): Promise<void> {
    await killOnce(this.dataSource, 'before-publish', event.subject);
    await this.inner.publish(event, headers);
    await killOnce(this.dataSource, 'after-publish', event.subject);
  }
  subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    return this.inner.subscribe(subscription);
  }
  declare(queues: readonly QueueDeclaration[]): Promise<void> {
    return this.inner.declare?.(queues) ?? Promise.resolve();
  }
  isReady(): boolean {
    return this.inner.isReady();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The inbox, with a kill after the consumer's transaction committed and before the ack. */
function killingInbox(inbox: Inbox, dataSource: DataSource): InboxRunner {
  return {
    ping: () => inbox.ping(),
    handleOnce: async (consumer, event, effect) => {
      const applied = await inbox.handleOnce(consumer, event, effect);
      const subject = (event as { subject?: string }).subject ?? '';
      await killOnce(dataSource, 'after-commit', subject);
      return applied;
    },
  };
}

async function record(tx: EntityManager, consumer: string, id: string, subject: string) {
  await tx.query(
    `INSERT INTO "${SCHEMA}"."effects" (consumer, event_id, subject, version) VALUES ($1, $2, $3, 1)`,
    [consumer, id, subject],
  );
}

@Controller()
class Handlers {
  @OnEvent(EventTypes.OrderPlaced, { consumer: CRASH_WORKER.consumer })
  async apply(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    if (event.subject.startsWith('exit')) die();
    if (event.subject.startsWith('throw')) throw new Error('always fails');
    await record(ctx.getTransaction(), 'consumer', event.id, event.subject);
  }
}

@Injectable()
class Timers {
  constructor(private readonly dataSource: DataSource) {}

  @OnTimer(CRASH_WORKER.timerName)
  async fire(_payload: unknown, tx: EntityManager, timer: FiredTimer): Promise<void> {
    if (timer.key.startsWith('exit')) die();
    await record(tx, 'timer', timer.key, timer.name);
    await killOnce(this.dataSource, 'in-timer', timer.key);
  }
}

async function main(): Promise<void> {
  // A test fixture configured by the test that spawns it, not a service: no typed config.
  // eslint-disable-next-line no-restricted-syntax
  const env = process.env;
  const dataSource = await openServiceDatabase(env.WORKER_DATABASE_URL as string);
  await dataSource.query(`CREATE TABLE IF NOT EXISTS "${SCHEMA}"."kills" (name text PRIMARY KEY)`);
  const bus = new KillingBus(
    new RabbitMqBus({
      url: env.WORKER_AMQP_URL as string,
      exchange: env.WORKER_EXCHANGE,
      queuePrefix: env.WORKER_QUEUE_PREFIX,
      reconnectDelayMs: 100,
    }),
    dataSource,
  );
  const options = messagingOptions({
    relayPollMs: 100,
    timers: {
      maxAttempts: Number(env.WORKER_TIMER_MAX_ATTEMPTS ?? CRASH_WORKER.timerMaxAttempts),
      leaseMs: CRASH_WORKER.timerLeaseMs,
    },
  });

  @Global()
  @Module({
    providers: [
      { provide: DataSource, useValue: dataSource },
      { provide: MESSAGE_BUS, useValue: bus },
    ],
    exports: [DataSource, MESSAGE_BUS],
  })
  class CoreModule {}

  @Module({
    imports: [CoreModule, MessagingModule.forService(options)],
    controllers: [Handlers],
    providers: [Timers],
  })
  class WorkerModule {}

  const app = await NestFactory.createMicroservice<MicroserviceOptions>(WorkerModule, {
    strategy: new BusServer(bus, {
      service: CRASH_WORKER.service,
      inbox: killingInbox(new Inbox(dataSource, options), dataSource),
      deadLetters: new DeadLetterStore(dataSource, options),
      maxDeliveries: Number(env.WORKER_MAX_DELIVERIES ?? CRASH_WORKER.maxDeliveries),
      retry: { delaysMs: [...CRASH_WORKER.retryDelaysMs] },
    }),
    logger: ['error', 'warn'],
  });
  app.useGlobalFilters(new BusExceptionFilter());
  await app.listen();
  process.stdout.write('ready\n');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`crash worker failed to start: ${String(error)}\n`);
    process.exit(2);
  });
}
