/**
 * A replica of a service for the crash tests, run as its own process (`node -r
 * ./tools/register.js crash-worker.ts`): its outbox relay, a consumer and a timer handler that
 * record their effect; poison that kills the process (SIGKILL, as `kill -9` would)
 * mid-handling every time (`exit-*`), and events and timers that kill it once at a given
 * window (`kill-<window>-*`, remembered in the `kills` table so the next life goes on).
 * Events `throw-*` always fail, `fail-life1-*` fail in the process's first life only.
 * Configured by environment: WORKER_DATABASE_URL, WORKER_BUS (`rabbitmq`, the default, or
 * `in-process`: standalone mode, the relay publishing to the process's own consumer),
 * WORKER_AMQP_URL, WORKER_EXCHANGE, WORKER_QUEUE_PREFIX, WORKER_MAX_DELIVERIES,
 * WORKER_TIMER_MAX_ATTEMPTS, WORKER_RETRY_DELAYS_MS (comma-separated), WORKER_LIFE.
 */
import 'reflect-metadata';
import { Controller, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { InProcessBus } from '../../in-process/in-process-bus';
import { MessagingLifecycle } from '../../messaging.lifecycle';
import { DeferredRetries } from '../../retries/deferred-retries';
import {
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
import { BusServer, type InboxRunner, type RetrySink } from '../../nest/bus-server';
import { OnEvent } from '../../nest/on-event.decorator';
import {
  coreModule,
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

/**
 * The real bus, with a kill before and after a publish is confirmed (before the outbox mark),
 * and right after a failed message's retry was kept durably (before its publish settled).
 */
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
    const defer = subscription.deferRetry;
    return this.inner.subscribe({
      ...subscription,
      deferRetry:
        defer &&
        (async (message, delayMs, error) => {
          await defer(message, delayMs, error);
          await killOnce(this.dataSource, 'after-defer', message.event.subject);
        }),
    });
  }
  get flagsRedeliveries(): boolean | undefined {
    return this.inner.flagsRedeliveries;
  }

  get queuesInPublishOrder(): boolean | undefined {
    return this.inner.queuesInPublishOrder;
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
    handleOnce: async (consumer, event, effect, within) => {
      const applied = await inbox.handleOnce(consumer, event, effect, within);
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

/** Which life of the replica this is (1 for the first start), as its supervisor counts. */
let life = 1;

@Controller()
class Handlers {
  @OnEvent(EventTypes.OrderPlaced, { consumer: CRASH_WORKER.consumer })
  async apply(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    if (event.subject.startsWith('exit')) die();
    if (event.subject.startsWith('throw')) throw new Error('always fails');
    if (event.subject.startsWith('fail-life1-') && life === 1) {
      throw new Error('fails in the first life');
    }
    if (event.subject.startsWith('kill-after-defer-')) {
      // Fails until the process was killed right after keeping its retry, then succeeds.
      const killed: unknown[] = await ctx
        .getTransaction()
        .query(`SELECT 1 FROM "${SCHEMA}"."kills" WHERE name = $1`, [event.subject]);
      if (killed.length === 0) throw new Error('fails until the kill');
    }
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
  life = Number(env.WORKER_LIFE ?? 1);
  const inProcess = env.WORKER_BUS === 'in-process';
  const retryDelaysMs = env.WORKER_RETRY_DELAYS_MS
    ? env.WORKER_RETRY_DELAYS_MS.split(',').map(Number)
    : [...CRASH_WORKER.retryDelaysMs];
  const dataSource = await openServiceDatabase(env.WORKER_DATABASE_URL as string);
  await dataSource.query(`CREATE TABLE IF NOT EXISTS "${SCHEMA}"."kills" (name text PRIMARY KEY)`);
  const bus = new KillingBus(
    inProcess
      ? new InProcessBus()
      : new RabbitMqBus({
          url: env.WORKER_AMQP_URL as string,
          exchange: env.WORKER_EXCHANGE,
          queuePrefix: env.WORKER_QUEUE_PREFIX,
          reconnectDelayMs: 100,
        }),
    dataSource,
  );
  const options = messagingOptions({
    relayPollMs: 100,
    timerPollMs: 100,
    timers: {
      maxAttempts: Number(env.WORKER_TIMER_MAX_ATTEMPTS ?? CRASH_WORKER.timerMaxAttempts),
      leaseMs: CRASH_WORKER.timerLeaseMs,
    },
    // Standalone: the relay starts once the consumer listens (as startPlatform does).
    deferRelayStart: inProcess,
  });

  const CoreModule = coreModule(dataSource, bus);

  @Module({
    imports: [CoreModule, MessagingModule.forService(options)],
    controllers: [Handlers],
    providers: [Timers],
  })
  class WorkerModule {}

  // The retries are the module's (its timer poller runs them): found once the app exists,
  // before the server listens.
  const retriesRef: { current?: DeferredRetries } = {};
  const retries: RetrySink = {
    defer: (...args) => (retriesRef.current as DeferredRetries).defer(...args),
    serve: (run) => (retriesRef.current as DeferredRetries).serve(run),
  };
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(WorkerModule, {
    strategy: new BusServer(bus, {
      service: CRASH_WORKER.service,
      inbox: killingInbox(new Inbox(dataSource, options), dataSource),
      deadLetters: new DeadLetterStore(dataSource, options),
      retries,
      maxDeliveries: Number(env.WORKER_MAX_DELIVERIES ?? CRASH_WORKER.maxDeliveries),
      retry: { delaysMs: retryDelaysMs },
    }),
    logger: ['error', 'warn'],
  });
  retriesRef.current = app.get(DeferredRetries);
  app.useGlobalFilters(new BusExceptionFilter());
  if (inProcess) {
    // Topology before traffic: the queue keeps what the relay publishes until it listens.
    // (On RabbitMQ the suite declared it, as every service does at start.)
    await bus.declare([
      {
        queue: `${CRASH_WORKER.service}.${CRASH_WORKER.consumer}`,
        eventTypes: [EventTypes.OrderPlaced],
      },
    ]);
  }
  await app.listen();
  if (inProcess) app.get(MessagingLifecycle).startRelay();
  process.stdout.write('ready\n');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`crash worker failed to start: ${String(error)}\n`);
    process.exit(2);
  });
}
