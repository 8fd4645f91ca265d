import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource, type EntityManager } from 'typeorm';
import { InProcessBus } from '../in-process/in-process-bus';
import { MessagingModule } from '../messaging.module';
import {
  coreModule,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { OnTimer } from './on-timer.decorator';
import { TimerPoller } from './timer.poller';
import { TimerService } from './timer.service';
import type { FiredTimer } from './timer.types';

const TIMERS = `"${SCHEMA}"."timers"`;
const GRACE_MS = 1_500;

/** A deadline waiting for a report from outside, and a timer that is not one. */
@Injectable()
class Deadlines {
  @OnTimer('report-deadline', { graceAfterOutage: true })
  async reportMissing(_payload: unknown, manager: EntityManager, timer: FiredTimer) {
    await manager.query(
      `INSERT INTO "${SCHEMA}"."effects" (consumer, event_id, subject, version) VALUES ($1, $2, 'fired', 1)`,
      [timer.name, timer.key],
    );
  }

  @OnTimer('housekeeping')
  async housekeeping(_payload: unknown, manager: EntityManager, timer: FiredTimer) {
    await this.reportMissing(_payload, manager, timer);
  }
}

interface FiredRow {
  name: string;
  key: string;
  fire_at: Date;
  next_attempt_at: Date;
  fired_at: Date | null;
}

describe('deadlines after an outage (docs/adr/0060)', () => {
  let db: TestDatabase;
  let observer: DataSource;
  const bus = new InProcessBus();
  const cleanups: Array<() => Promise<void>> = [];
  const scheduler = new TimerService(messagingOptions());

  beforeAll(async () => {
    db = await createTestDatabase('timer_grace');
    observer = await openServiceDatabase(db.url);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await observer.query(`DELETE FROM ${TIMERS}`);
    await observer.query(`DELETE FROM "${SCHEMA}"."effects"`);
  });
  afterAll(async () => {
    await bus.close();
    await observer.destroy();
    await db.drop();
  });

  async function startReplica(url: string, outageGraceMs = GRACE_MS) {
    const dataSource = await openServiceDatabase(url, 5, 2_000);
    const CoreModule = coreModule(dataSource, bus);
    const options = messagingOptions();
    @Module({
      imports: [
        CoreModule,
        MessagingModule.forService({ ...options, timers: { ...options.timers, outageGraceMs } }),
      ],
      providers: [Deadlines],
    })
    class RootModule {}
    const app: INestApplicationContext = await NestFactory.createApplicationContext(RootModule, {
      logger: ['error'],
    });
    await app.init();
    cleanups.push(async () => {
      await app.close();
      if (dataSource.isInitialized) await dataSource.destroy();
    });
    return app;
  }

  function schedule(name: string, key: string, fireAt: Date): Promise<void> {
    return observer.transaction((manager) =>
      scheduler.schedule(manager, { name, key, fireAt, payload: {} }),
    );
  }

  async function timer(name: string, key: string): Promise<FiredRow> {
    const [row] = (await observer.query(
      `SELECT name, key, fire_at, next_attempt_at, fired_at FROM ${TIMERS} WHERE name = $1 AND key = $2`,
      [name, key],
    )) as FiredRow[];
    return row;
  }

  async function fired(name: string, key: string): Promise<Date> {
    await waitFor(`${name}/${key} to fire`, async () => (await timer(name, key)).fired_at !== null);
    return (await timer(name, key)).fired_at as Date;
  }

  it('holds a deadline that fell due while the database could not be reached for the grace after it is back; other timers fire at once', async () => {
    const target = new URL(db.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.stop());
    const app = await startReplica(proxy.urlFor(db.url));
    const poller = app.get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');

    proxy.goDown();
    await waitFor('the poller to fail', () => poller.state() === 'failing');
    const due = new Date(Date.now() + 200);
    await schedule('report-deadline', 'order-1', due);
    await schedule('housekeeping', 'order-1', due);
    await new Promise((resolve) => setTimeout(resolve, 600));
    proxy.comeBack();

    const housekept = await fired('housekeeping', 'order-1');
    const held = await timer('report-deadline', 'order-1');
    expect(held.fired_at).toBeNull();
    expect(held.next_attempt_at.getTime() - held.fire_at.getTime()).toBeGreaterThan(GRACE_MS);

    const deadline = await fired('report-deadline', 'order-1');
    expect(deadline.getTime() - housekept.getTime()).toBeGreaterThanOrEqual(GRACE_MS - 200);
  });

  it('holds a deadline already due when the service starts; one falling due after the start fires on time', async () => {
    await schedule('report-deadline', 'while-down', new Date(Date.now() - 5_000));
    await startReplica(db.url);
    await schedule('report-deadline', 'after-start', new Date(Date.now() + 100));

    const onTime = await fired('report-deadline', 'after-start');
    const held = await fired('report-deadline', 'while-down');
    expect(held.getTime() - onTime.getTime()).toBeGreaterThanOrEqual(GRACE_MS - 500);
  });

  it('fires a deadline due while the service was down at once when the grace is 0', async () => {
    await schedule('report-deadline', 'while-down', new Date(Date.now() - 5_000));
    await startReplica(db.url, 0);
    await schedule('report-deadline', 'after-start', new Date(Date.now() + 1_000));

    const atOnce = await fired('report-deadline', 'while-down');
    expect((await timer('report-deadline', 'after-start')).fired_at).toBeNull();
    expect(atOnce).toBeInstanceOf(Date);
  });
});
