import { Inject, Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createTestDatabase, lockWaiters, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { InProcessBus } from '../in-process/in-process-bus';
import { MessagingModule } from '../messaging.module';
import type { TimerTuning } from '../messaging.options';
import { OutboxWriter } from '../outbox/outbox.writer';
import {
  coreModule,
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { OnTimer } from './on-timer.decorator';
import { TimerLockNotFoundError, TimerOutsideTransactionError } from './timer.errors';
import { TimerService } from './timer.service';
import type { FiredTimer, TimerPayload } from './timer.types';

type Behaviour = (
  payload: TimerPayload,
  manager: EntityManager,
  timer: FiredTimer,
) => Promise<void>;
const BEHAVIOUR = Symbol('BEHAVIOUR');
const TIMERS = `"${SCHEMA}"."timers"`;
const EFFECTS = `"${SCHEMA}"."effects"`;
const AGGREGATES = `"${SCHEMA}"."aggregates"`;

/** What a service's timer handler looks like: a provider method marked with @OnTimer. */
@Injectable()
class PlacementTimeouts {
  constructor(@Inject(BEHAVIOUR) private readonly behaviour: Behaviour) {}

  @OnTimer('placement-timeout')
  onTimeout(payload: TimerPayload, manager: EntityManager, timer: FiredTimer): Promise<void> {
    return this.behaviour(payload, manager, timer);
  }
}

/**
 * A deadline of an aggregate whose other writers lock the aggregate, then its timers: the
 * handler locks the aggregate first (`lockFirst`), so the firing takes them in that order too.
 */
@Injectable()
class AggregateDeadlines {
  @OnTimer('aggregate-deadline', { lockFirst: 'lockAggregate' })
  async onDeadline(payload: TimerPayload, manager: EntityManager, timer: FiredTimer) {
    await manager.query(`SELECT id FROM ${AGGREGATES} WHERE id = $1 FOR UPDATE`, [payload.id]);
    await manager.query(
      `INSERT INTO ${EFFECTS} (consumer, event_id, subject, version) VALUES ('timer', $1, $2, $3)`,
      [timer.key, timer.name, timer.attempt],
    );
  }

  lockAggregate(payload: TimerPayload, manager: EntityManager): Promise<unknown> {
    return manager.query(`SELECT id FROM ${AGGREGATES} WHERE id = $1 FOR UPDATE`, [payload.id]);
  }
}

/** Names a lock method it does not have. */
@Injectable()
class MisnamedLock {
  @OnTimer('misnamed', { lockFirst: 'lockNothing' })
  onDeadline(): Promise<void> {
    return Promise.resolve();
  }
}

/** Names its handler as its lock: the handler would run twice. */
@Injectable()
class SelfLock {
  @OnTimer('self-locked', { lockFirst: 'onDeadline' })
  onDeadline(): Promise<void> {
    return Promise.resolve();
  }
}

/** Records the effect (key, attempt) and announces it through the outbox, in the timer's transaction. */
function recordAndAnnounce(outbox: OutboxWriter): Behaviour {
  return async (_payload, manager, timer) => {
    await manager.query(
      `INSERT INTO ${EFFECTS} (consumer, event_id, subject, version) VALUES ('timer', $1, $2, $3)`,
      [timer.key, timer.name, timer.attempt],
    );
    await outbox.add(manager, configUpdated(timer.key, timer.attempt));
  };
}

describe('durable timers', () => {
  let db: TestDatabase;
  let bus: InProcessBus;
  let observer: DataSource;
  const replicas: Array<{ app: INestApplicationContext; dataSource: DataSource }> = [];

  beforeAll(async () => {
    db = await createTestDatabase('timers');
    bus = new InProcessBus();
    observer = await openServiceDatabase(db.url);
  });
  afterEach(async () => {
    for (const replica of replicas.splice(0)) await stop(replica);
    await observer.query(`DELETE FROM ${TIMERS}`);
    await observer.query(`DELETE FROM ${EFFECTS}`);
  });
  afterAll(async () => {
    await bus.close();
    await observer.destroy();
    await db.drop();
  });

  /** One running replica of a service: its own data source, the module as the runtime wires it. */
  async function startReplica(
    behaviour: (outbox: OutboxWriter) => Behaviour = recordAndAnnounce,
    timers: TimerTuning = {},
    poolSize?: number,
    handlers: Array<new (...args: never[]) => unknown> = [],
  ): Promise<{ app: INestApplicationContext; dataSource: DataSource }> {
    const dataSource = await openServiceDatabase(db.url, poolSize);
    const options = messagingOptions({ timers });
    const CoreModule = coreModule(dataSource, bus);
    @Module({
      providers: [
        { provide: BEHAVIOUR, useFactory: behaviour, inject: [OutboxWriter] },
        PlacementTimeouts,
        ...handlers,
      ],
    })
    class FeatureModule {}
    @Module({
      imports: [
        CoreModule,
        MessagingModule.forService({ ...options, timers: { ...options.timers, ...timers } }),
        FeatureModule,
      ],
    })
    class RootModule {}

    let app: INestApplicationContext | undefined;
    try {
      app = await NestFactory.createApplicationContext(RootModule, { logger: ['error', 'warn'] });
      await app.init();
    } catch (error) {
      await app?.close();
      await dataSource.destroy();
      throw error;
    }
    const replica = { app, dataSource };
    replicas.push(replica);
    return replica;
  }

  async function stop(replica: {
    app: INestApplicationContext;
    dataSource: DataSource;
  }): Promise<void> {
    const index = replicas.indexOf(replica);
    if (index >= 0) replicas.splice(index, 1);
    await replica.app.close();
    if (replica.dataSource.isInitialized) await replica.dataSource.destroy();
  }

  async function schedule(
    replica: { app: INestApplicationContext; dataSource: DataSource },
    key: string,
    fireAt: Date,
  ): Promise<void> {
    const timers = replica.app.get(TimerService);
    await replica.dataSource.transaction((manager) =>
      timers.schedule(manager, {
        name: 'placement-timeout',
        key,
        fireAt,
        payload: { orderId: key },
      }),
    );
  }

  async function effects(): Promise<Array<{ key: string; attempt: number }>> {
    return observer.query(
      `SELECT event_id AS key, version AS attempt FROM ${EFFECTS} ORDER BY seq`,
    );
  }

  async function timerRow(key: string) {
    const [row] = await observer.query(
      `SELECT fire_at, fired_at, dead_at, attempts, last_error FROM ${TIMERS} WHERE name = 'placement-timeout' AND key = $1`,
      [key],
    );
    return row as
      | {
          fire_at: Date;
          fired_at: Date | null;
          dead_at: Date | null;
          attempts: number;
          last_error: string | null;
        }
      | undefined;
  }

  /** Aggregate `id` exists (the table made on first use). */
  async function aggregate(id: string): Promise<void> {
    await observer.query(`CREATE TABLE IF NOT EXISTS ${AGGREGATES} (id text PRIMARY KEY)`);
    await observer.query(`INSERT INTO ${AGGREGATES} (id) VALUES ($1) ON CONFLICT DO NOTHING`, [id]);
  }

  /** An `aggregate-deadline` of aggregate `id`, due now. */
  async function scheduleDeadline(
    replica: { app: INestApplicationContext; dataSource: DataSource },
    key: string,
    id: string,
  ): Promise<void> {
    await replica.dataSource.transaction((manager) =>
      replica.app.get(TimerService).schedule(manager, {
        name: 'aggregate-deadline',
        key,
        fireAt: new Date(),
        payload: { id },
      }),
    );
  }

  /** A writer of aggregate `id` (a partner's event, say), holding it until it commits. */
  async function holdAggregate(id: string): Promise<QueryRunner> {
    const writer = observer.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    await writer.query(`SELECT id FROM ${AGGREGATES} WHERE id = $1 FOR UPDATE`, [id]);
    return writer;
  }

  async function release(writer: QueryRunner): Promise<void> {
    if (writer.isTransactionActive) await writer.rollbackTransaction();
    await writer.release();
  }

  it('fires a timer whose deadline passed while the service was down once at the next start, late but not lost', async () => {
    const first = await startReplica();
    const fireAt = new Date(Date.now() + 500);
    await schedule(first, 'order-1', fireAt);
    await stop(first);

    await waitFor(
      'the deadline to pass while no replica runs',
      () => Date.now() > fireAt.getTime() + 200,
    );
    expect((await timerRow('order-1'))?.fired_at).toBeNull();

    const second = await startReplica();
    await waitFor('the late timer to fire', async () => (await effects()).length > 0);
    await stop(second);

    expect(await effects()).toEqual([{ key: 'order-1', attempt: 1 }]);
    const row = await timerRow('order-1');
    expect(row?.fired_at?.getTime()).toBeGreaterThan(fireAt.getTime() + 200);
    // The event its handler wrote went out with the timer's own request id.
    const [announced] = await observer.query(
      `SELECT headers, published_at FROM "${SCHEMA}"."outbox" WHERE subject = 'order-1'`,
    );
    expect(announced.headers).toEqual({ requestId: expect.any(String) });
    expect(announced.published_at).not.toBeNull();
  });

  it('fires each timer once when two replicas poll at the same time', async () => {
    const a = await startReplica();
    await startReplica();
    const fireAt = new Date(Date.now() + 300);
    const keys = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    await a.dataSource.transaction(async (manager) => {
      const timers = a.app.get(TimerService);
      for (const key of keys) {
        await timers.schedule(manager, {
          name: 'placement-timeout',
          key,
          fireAt,
          payload: { orderId: key },
        });
      }
    });

    await waitFor('every timer to fire', async () => (await effects()).length >= keys.length);
    for (const replica of [...replicas]) await stop(replica);

    const fired = await effects();
    expect(fired).toHaveLength(keys.length);
    expect(new Set(fired.map((effect) => effect.key))).toEqual(new Set(keys));
  });

  it('fires a timer whose handler outlasts its lease once, its attempt counted once, while another replica polls', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const behaviour = (outbox: OutboxWriter): Behaviour => {
      const announce = recordAndAnnounce(outbox);
      return async (payload, manager, timer) => {
        if (timer.key === 'order-long') await released;
        await announce(payload, manager, timer);
      };
    };
    const a = await startReplica(behaviour, { leaseMs: 300 });
    await startReplica(behaviour, { leaseMs: 300 });
    await schedule(a, 'order-long', new Date());

    // The lease runs out while the handler still runs...
    await waitFor('the handler to outlast its lease', async () => {
      const [row] = await observer.query(
        `SELECT locked_until < now() AS expired FROM ${TIMERS} WHERE key = 'order-long'`,
      );
      return (row as { expired: boolean | null }).expired === true;
    });
    // ...and the other replica polls after that: a timer due now can only be fired by it,
    // the first one being busy with the long handler.
    await schedule(a, 'order-probe', new Date());
    await waitFor('the other replica to fire a timer', async () =>
      Boolean((await timerRow('order-probe'))?.fired_at),
    );
    release();
    await waitFor('the long timer to fire', async () =>
      Boolean((await timerRow('order-long'))?.fired_at),
    );

    expect((await effects()).filter((effect) => effect.key === 'order-long')).toEqual([
      { key: 'order-long', attempt: 1 },
    ]);
    expect(await timerRow('order-long')).toMatchObject({ attempts: 1, dead_at: null });
  });

  it('retries a throwing handler with back-off and keeps none of the failed attempts’ writes', async () => {
    const replica = await startReplica((outbox) => async (payload, manager, timer) => {
      await recordAndAnnounce(outbox)(payload, manager, timer);
      if (timer.attempt < 3) throw new Error(`POS unreachable (attempt ${timer.attempt})`);
    });
    await schedule(replica, 'order-flaky', new Date());

    await waitFor('the third attempt to succeed', async () =>
      Boolean((await timerRow('order-flaky'))?.fired_at),
    );
    expect(await effects()).toEqual([{ key: 'order-flaky', attempt: 3 }]);
    expect(await timerRow('order-flaky')).toMatchObject({
      attempts: 3,
      last_error: null,
      dead_at: null,
    });
    const announced = await observer.query(
      `SELECT 1 FROM "${SCHEMA}"."outbox" WHERE subject = 'order-flaky'`,
    );
    expect(announced).toHaveLength(1);
  });

  it('marks a timer dead with its last error once its attempts are used up', async () => {
    const replica = await startReplica(
      () => async () => {
        throw new Error('POS unreachable');
      },
      { maxAttempts: 3 },
    );
    await schedule(replica, 'order-dead', new Date());

    const row = await waitFor('the timer to die', async () => {
      const current = await timerRow('order-dead');
      return current?.dead_at ? current : undefined;
    });
    expect(row).toMatchObject({ attempts: 3, last_error: 'POS unreachable', fired_at: null });
    expect(await effects()).toEqual([]);
  });

  it('moves the deadline when a timer is scheduled again, and cancels or discards an unfired timer', async () => {
    const replica = await startReplica();
    await schedule(replica, 'order-moved', new Date(Date.now() + 3_600_000));
    await schedule(replica, 'order-cancelled', new Date(Date.now() + 3_600_000));
    await schedule(replica, 'order-discarded', new Date(Date.now() + 3_600_000));
    await schedule(replica, 'order-moved', new Date(Date.now() + 100));

    const timers = replica.app.get(TimerService);
    const cancelled = await replica.dataSource.transaction((manager) =>
      timers.cancel(manager, 'placement-timeout', 'order-cancelled'),
    );
    expect(cancelled).toMatchObject({ fireAt: expect.any(Date), nextAttemptAt: expect.any(Date) });
    expect(await timerRow('order-cancelled')).toBeUndefined();
    // Discarded: the transaction's next statement already finds it gone.
    const seen = await replica.dataSource.transaction(async (manager) => {
      await timers.discard(manager, 'placement-timeout', 'order-discarded');
      return timers.pending(manager, 'placement-timeout', 'order-discarded');
    });
    expect(seen).toBeUndefined();
    expect(await timerRow('order-discarded')).toBeUndefined();

    await waitFor('the moved timer to fire', async () => (await effects()).length > 0);
    expect(await effects()).toEqual([{ key: 'order-moved', attempt: 1 }]);
  });

  it('fires every timer with a pool of 2 connections although handlers need a second connection', async () => {
    const holder: { replica?: { app: INestApplicationContext; dataSource: DataSource } } = {};
    const replica = await startReplica(
      (outbox) => async (payload, manager, timer) => {
        // Outside the timer's transaction: a second connection while the first is held.
        await holder.replica?.dataSource.query('SELECT 1');
        await recordAndAnnounce(outbox)(payload, manager, timer);
      },
      { batchSize: 20 },
      2,
    );
    holder.replica = replica;
    const keys = Array.from({ length: 10 }, (_, i) => `pool-${i}`);
    for (const key of keys) await schedule(replica, key, new Date());

    await waitFor('every timer to fire', async () => (await effects()).length === keys.length);
    expect(new Set((await effects()).map((effect) => effect.key))).toEqual(new Set(keys));
  });

  it('fires on time on a node whose clock is 5 minutes off: the due time is the database’s', async () => {
    const replica = await startReplica();
    const realNow = Date.now.bind(Date);
    const skew = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 5 * 60_000);
    try {
      const timers = replica.app.get(TimerService);
      await replica.dataSource.transaction((manager) =>
        timers.schedule(manager, {
          name: 'placement-timeout',
          key: 'order-skewed',
          delayMs: 300,
          payload: {},
        }),
      );
      await waitFor('the timer to fire', async () =>
        Boolean((await timerRow('order-skewed'))?.fired_at),
      );
    } finally {
      skew.mockRestore();
    }
    const [row] = await observer.query(
      `SELECT extract(epoch FROM fire_at - created_at) * 1000 AS delay_ms,
              extract(epoch FROM fired_at - fire_at) * 1000 AS late_ms
       FROM ${TIMERS} WHERE key = 'order-skewed'`,
    );
    // Due 300 ms after it was scheduled by the database clock, not 5 minutes off either way.
    expect(Number(row.delay_ms)).toBeGreaterThanOrEqual(299);
    expect(Number(row.delay_ms)).toBeLessThan(1_000);
    expect(Number(row.late_ms)).toBeGreaterThanOrEqual(0);
  });

  it('fires a timer whose handler locks its aggregate first without deadlocking a writer that holds the aggregate and cancels the timer', async () => {
    await aggregate('a-1');
    const replica = await startReplica(recordAndAnnounce, {}, undefined, [AggregateDeadlines]);
    const timers = replica.app.get(TimerService);
    // A writer of the aggregate holds it while the timer falls due.
    const writer = await holdAggregate('a-1');
    try {
      await scheduleDeadline(replica, 'deadline-1', 'a-1');
      await waitFor(
        'the firing to wait for the aggregate',
        async () => (await lockWaiters(observer)) > 0,
      );
      // Then the writer cancels the timer. Had the firing locked the timer's row before the
      // aggregate, this would wait for it while it waits for the writer: a deadlock, which
      // PostgreSQL breaks after deadlock_timeout (1 s) by failing one of the two. The lock
      // timeout makes that wait fail here at once instead.
      await writer.query(`SET LOCAL lock_timeout = '300ms'`);
      const cancelled = await timers.cancel(writer.manager, 'aggregate-deadline', 'deadline-1');
      await writer.commitTransaction();
      expect(cancelled).toMatchObject({ fireAt: expect.any(Date) });
    } finally {
      await release(writer);
    }
    // The firing then gets the aggregate, finds its timer cancelled and runs nothing.
    await waitFor('the firing to end', async () => (await lockWaiters(observer)) === 0);
    await stop(replica);
    expect(await effects()).toEqual([]);
    const [left] = await observer.query(
      `SELECT count(*)::int AS n FROM ${TIMERS} WHERE name = 'aggregate-deadline'`,
    );
    expect(left.n).toBe(0);
  });

  it('fires once, on its last attempt, a timer whose lockFirst waits past its lease while another replica polls', async () => {
    await aggregate('a-3');
    const tuning = { leaseMs: 400, maxAttempts: 1, retryBaseMs: 100, retryMaxMs: 200 };
    const first = await startReplica(recordAndAnnounce, tuning, undefined, [AggregateDeadlines]);
    const writer = await holdAggregate('a-3');
    try {
      await scheduleDeadline(first, 'deadline-3', 'a-3');
      await startReplica(recordAndAnnounce, tuning, undefined, [AggregateDeadlines]);
      // The firing waits for the aggregate no longer than half its lease, gives the attempt
      // back and tries again later; waiting on, the lease would run out and the other replica
      // would park the timer as abandoned, its one attempt used.
      await waitFor('a firing to give up its wait', async () => {
        const row = await observer.query(
          `SELECT last_error FROM ${TIMERS} WHERE name = 'aggregate-deadline' AND key = 'deadline-3'`,
        );
        return /lock timeout/.test(row[0]?.last_error ?? '');
      });
      await writer.commitTransaction();
    } finally {
      await release(writer);
    }
    await waitFor('the timer to fire', async () => (await effects()).length > 0);
    const [row] = await observer.query(
      `SELECT fired_at IS NOT NULL AS fired, dead_at IS NOT NULL AS dead FROM ${TIMERS}
       WHERE name = 'aggregate-deadline' AND key = 'deadline-3'`,
    );
    expect(row).toEqual({ fired: true, dead: false });
    expect(await effects()).toEqual([{ key: 'deadline-3', attempt: 1 }]);
  });

  it('fires a timer whose handler locks its aggregate first, the aggregate free', async () => {
    await aggregate('a-2');
    const replica = await startReplica(recordAndAnnounce, {}, undefined, [AggregateDeadlines]);
    await scheduleDeadline(replica, 'deadline-2', 'a-2');
    await waitFor('the timer to fire', async () => (await effects()).length > 0);
    expect(await effects()).toEqual([{ key: 'deadline-2', attempt: 1 }]);
  });

  it.each([
    ['a method its provider does not have', MisnamedLock],
    ['the handler itself', SelfLock],
  ])('refuses to start when a timer names as its lockFirst %s', async (_what, provider) => {
    await expect(startReplica(recordAndAnnounce, {}, undefined, [provider])).rejects.toThrow(
      TimerLockNotFoundError,
    );
  });

  it('refuses to schedule, cancel or discard outside a transaction', async () => {
    const replica = await startReplica();
    const timers = replica.app.get(TimerService);
    const timer = { name: 'placement-timeout', key: 'order-x', fireAt: new Date(), payload: {} };
    await expect(timers.schedule(replica.dataSource.manager, timer)).rejects.toThrow(
      TimerOutsideTransactionError,
    );
    await expect(
      timers.cancel(replica.dataSource.manager, 'placement-timeout', 'order-x'),
    ).rejects.toThrow(TimerOutsideTransactionError);
    await expect(
      timers.discard(replica.dataSource.manager, 'placement-timeout', 'order-x'),
    ).rejects.toThrow(TimerOutsideTransactionError);
  });
});
