import { Controller, Global, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource } from 'typeorm';
import { InfrastructureUnavailableError, NonRetryableError } from '../bus/failure-kind';
import { MESSAGE_BUS, type RetryPolicy } from '../bus/message-bus';
import { orderPlaced } from '../bus/message-bus.contract';
import { DeadLetterStore } from '../dead-letters/dead-letter.store';
import { InProcessBus } from '../in-process/in-process-bus';
import { Inbox } from '../inbox/inbox.service';
import { MessagingLifecycle } from '../messaging.lifecycle';
import { MessagingModule } from '../messaging.module';
import { BusContext } from '../nest/bus-context';
import { BusExceptionFilter } from '../nest/bus-exception.filter';
import { BusServer, type RetrySink } from '../nest/bus-server';
import { OnEvent } from '../nest/on-event.decorator';
import { OutboxWriter } from '../outbox/outbox.writer';
import {
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { DeferredRetries, RETRY_TIMER, retryTimerKey } from './deferred-retries';

const BEHAVIOUR = Symbol('BEHAVIOUR');

/** What the `slow` consumer does with an event; the `fast` one always records it. */
type Behaviour = (event: CloudEvent, attempt: number) => void;

@Controller()
class Handlers {
  constructor(@Inject(BEHAVIOUR) private readonly behaviour: { slow: Behaviour }) {}

  @OnEvent(EventTypes.OrderPlaced, { consumer: 'slow' })
  async slow(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    this.behaviour.slow(event, ctx.getMessage().attempt);
    await record(ctx, 'slow', event);
  }

  @OnEvent(EventTypes.OrderPlaced, { consumer: 'fast' })
  async fast(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await record(ctx, 'fast', event);
  }
}

async function record(ctx: BusContext, consumer: string, event: CloudEvent): Promise<void> {
  await ctx
    .getTransaction()
    .query(
      `INSERT INTO "${SCHEMA}"."effects" (consumer, event_id, subject, version) VALUES ($1, $2, $3, $4)`,
      [consumer, event.id, event.subject, ctx.getMessage().attempt],
    );
}

interface RunningService {
  app: INestMicroservice;
  server: BusServer;
  bus: InProcessBus;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * A service in standalone mode as the runtime wires it: outbox, relay, inbox, timers, dead
 * letters and durable retries in its schema, its consumers on the in-process bus.
 */
async function startService(
  url: string,
  retry: RetryPolicy,
  behaviour: { slow: Behaviour },
): Promise<RunningService> {
  const dataSource = await openServiceDatabase(url, 6);
  const bus = new InProcessBus({
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const options = messagingOptions({ deferRelayStart: true });

  @Global()
  @Module({
    providers: [
      { provide: DataSource, useValue: dataSource },
      { provide: MESSAGE_BUS, useValue: bus },
      { provide: BEHAVIOUR, useValue: behaviour },
    ],
    exports: [DataSource, MESSAGE_BUS, BEHAVIOUR],
  })
  class CoreModule {}
  @Module({ imports: [CoreModule, MessagingModule.forService(options)], controllers: [Handlers] })
  class ServiceModule {}

  const retriesRef: { current?: DeferredRetries } = {};
  const retries: RetrySink = {
    defer: (...args) => (retriesRef.current as DeferredRetries).defer(...args),
    serve: (run) => (retriesRef.current as DeferredRetries).serve(run),
  };
  const server = new BusServer(bus, {
    service: 'svc',
    inbox: new Inbox(dataSource, options),
    deadLetters: new DeadLetterStore(dataSource, options),
    retries,
    retry,
  });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(ServiceModule, {
    strategy: server,
    logger: false,
  });
  retriesRef.current = app.get(DeferredRetries);
  app.useGlobalFilters(new BusExceptionFilter());
  await bus.declare(
    ['slow', 'fast'].map((consumer) => ({
      queue: `svc.${consumer}`,
      eventTypes: [EventTypes.OrderPlaced],
    })),
  );
  await app.listen();
  app.get(MessagingLifecycle).startRelay();
  return {
    app,
    server,
    bus,
    dataSource,
    close: async () => {
      await app.close();
      await bus.close();
      await dataSource.destroy();
    },
  };
}

describe('durable retries of the in-process bus (standalone mode)', () => {
  let db: TestDatabase;
  let observer: DataSource;
  let service: RunningService | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('deferred-retries');
    observer = await openServiceDatabase(db.url, 2);
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  afterAll(async () => {
    await observer?.destroy();
    await db?.drop();
  });

  const write = (subjects: string[]): Promise<CloudEvent[]> =>
    observer.transaction(async (tx) => {
      const writer = new OutboxWriter(messagingOptions());
      const written: CloudEvent[] = [];
      for (const subject of subjects) {
        written.push(
          await writer.add(tx, {
            type: EventTypes.OrderPlaced,
            tenantId: 'tenant-a',
            subject,
            data: orderPlaced('tenant-a', subject).data as never,
          }),
        );
      }
      return written;
    });
  const applied = async (consumer: string, events: CloudEvent[]) => {
    const rows: Array<{ event_id: string; n: number; attempt: number }> = await observer.query(
      `SELECT event_id, count(*)::int AS n, max(version) AS attempt FROM "${SCHEMA}"."effects"
       WHERE consumer = $1 AND event_id = ANY($2) GROUP BY event_id`,
      [consumer, events.map((event) => event.id)],
    );
    return new Map(rows.map((row) => [row.event_id, row]));
  };
  const retryTimer = async (consumer: string, event: CloudEvent) => {
    const [row] = (await observer.query(
      `SELECT fired_at, dead_at, payload FROM "${SCHEMA}"."timers" WHERE name = $1 AND key = $2`,
      [RETRY_TIMER, retryTimerKey(`svc.${consumer}`, event.id)],
    )) as Array<{ fired_at: Date | null; dead_at: Date | null; payload: { attempt: number } }>;
    return row;
  };
  const lettersOf = async (events: CloudEvent[]) => {
    const ids = new Set(events.map((event) => event.id));
    const list = await (service as RunningService).app.get(DeadLetterStore).list();
    return list.filter((letter) => ids.has(letter.eventId));
  };
  const published = async (event: CloudEvent) => {
    const [row] = (await observer.query(
      `SELECT published_at FROM "${SCHEMA}"."outbox" WHERE event_id = $1`,
      [event.id],
    )) as Array<{ published_at: Date | null }>;
    return row?.published_at !== null && row !== undefined;
  };

  it('lets every later event reach every consumer while one consumer waits to retry a failed one, then applies that one once', async () => {
    // The first event of order-1 fails for the slow consumer until the gate opens.
    const gate: { open: boolean; eventId?: string } = { open: false };
    const failures: number[] = [];
    service = await startService(
      db.url,
      // Room for many failures before the schedule is used up: the gate decides when it works.
      { delaysMs: [200, 400, 800, 1_600, 3_200, 6_400, 12_800, 25_600] },
      {
        slow: (event, attempt) => {
          if (event.subject === 'order-1') gate.eventId ??= event.id;
          if (event.id === gate.eventId && !gate.open) {
            failures.push(attempt);
            throw new Error('the kitchen printer is jammed');
          }
        },
      },
    );

    const [gated] = await write(['order-1']);
    // Its failure settled the publish at once: the row is marked published, the retry waits.
    await waitFor(
      'the failed event published and its retry kept',
      async () =>
        failures.length >= 1 &&
        (await published(gated)) &&
        (await retryTimer('slow', gated))?.fired_at === null,
    );
    expect(gate.eventId).toBe(gated.id);
    // Written after the failure, in later relay batches; one in the same aggregate.
    const later = await write(['order-1', 'order-2', 'order-3', 'order-4']);

    await waitFor(
      'every later event applied by both consumers',
      async () =>
        (await applied('fast', [gated, ...later])).size === later.length + 1 &&
        (await applied('slow', later)).size === later.length,
    );
    // Meanwhile the failed one has not been applied by its consumer and still waits to retry.
    expect((await applied('slow', [gated])).size).toBe(0);
    expect(await retryTimer('slow', gated)).toMatchObject({ fired_at: null, dead_at: null });

    await waitFor('a retry to fail again', () => failures.length >= 2);
    gate.open = true;
    const done = await waitFor('the retry to apply it', async () => {
      const rows = await applied('slow', [gated]);
      return rows.size === 1 ? rows.get(gated.id) : undefined;
    });

    expect(failures.slice(0, 2)).toEqual([1, 2]);
    expect(done).toMatchObject({ n: 1, attempt: failures.length + 1 });
    for (const consumer of ['fast', 'slow']) {
      const counts = await applied(consumer, [gated, ...later]);
      for (const event of [gated, ...later]) expect(counts.get(event.id)?.n).toBe(1);
    }
    expect(await retryTimer('slow', gated)).toMatchObject({ fired_at: expect.any(Date) });
    expect(await lettersOf([gated, ...later])).toEqual([]);
  });

  it('parks a message in dead_letters once the retries are used up (or at once for a NonRetryableError on a retry), and a replay applies it once', async () => {
    const fixed = new Set<string>();
    const policy = { delaysMs: [50, 50] };
    service = await startService(db.url, policy, {
      slow: (event, attempt) => {
        if (fixed.has(event.id)) return;
        if (event.subject === 'broken') throw new Error('no such table');
        if (event.subject === 'unknown' && attempt > 1) {
          throw new NonRetryableError('no such order');
        }
        if (event.subject === 'unknown') throw new Error('first attempt fails');
      },
    });
    const [broken, unknown] = await write(['broken', 'unknown']);
    const store = service.app.get(DeadLetterStore);

    const letters = await waitFor('both parked', async () => {
      const list = await lettersOf([broken, unknown]);
      return list.length === 2 ? list : undefined;
    });
    expect(
      letters.map(({ eventId, error, attempts, consumer }) => ({
        eventId,
        error,
        attempts,
        consumer,
      })),
    ).toEqual(
      expect.arrayContaining([
        { eventId: broken.id, error: 'no such table', attempts: 3, consumer: 'svc.slow' },
        { eventId: unknown.id, error: 'no such order', attempts: 2, consumer: 'svc.slow' },
      ]),
    );
    for (const event of [broken, unknown]) {
      expect(await retryTimer('slow', event)).toMatchObject({ fired_at: expect.any(Date) });
      expect(await published(event)).toBe(true);
    }
    expect((await applied('slow', [broken, unknown])).size).toBe(0);
    expect((await applied('fast', [broken, unknown])).size).toBe(2);

    // The cause is fixed: a replay runs the same handler through the same inbox, once.
    fixed.add(broken.id);
    const letter = letters.find((candidate) => candidate.eventId === broken.id);
    const taken = await store.take(letter?.id as string);
    expect(await service.server.replay('svc.slow', taken as NonNullable<typeof taken>)).toBe(
      'applied',
    );
    expect(await service.server.replay('svc.slow', taken as NonNullable<typeof taken>)).toBe(
      'already-applied',
    );
    expect((await applied('slow', [broken])).get(broken.id)?.n).toBe(1);
  });

  it('gives the attempt back when a retry meets an infrastructure failure, and applies it once the database answers', async () => {
    let outageOnRetry = true;
    const attempts: number[] = [];
    service = await startService(
      db.url,
      { delaysMs: [50, 50] },
      {
        slow: (event, attempt) => {
          if (event.subject !== 'outage') return;
          attempts.push(attempt);
          if (attempt === 1) throw new Error('first attempt fails');
          if (outageOnRetry) {
            outageOnRetry = false;
            throw new InfrastructureUnavailableError('connection terminated unexpectedly');
          }
        },
      },
    );
    const [event] = await write(['outage']);

    const done = await waitFor('the retry to apply it', async () =>
      (await applied('slow', [event])).get(event.id),
    );

    // The outage cost no attempt: the retry that met it ran again as attempt 2, and the
    // retry policy (two retries) was not used up.
    expect(attempts).toEqual([1, 2, 2]);
    expect(done).toMatchObject({ n: 1, attempt: 2 });
    expect(await lettersOf([event])).toEqual([]);
  });
});
