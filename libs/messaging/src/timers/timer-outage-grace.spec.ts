import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { noteRefusedForDatabase } from '@comanda/persistence';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource, type EntityManager } from 'typeorm';
import { forgetBroker, noteBrokerDown, noteBrokerUp } from '../broker-trouble';
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
/** Run once by the next firing of a deadline, before its handler writes (then cleared). */
let beforeNextFiring: (() => void) | undefined;

/** A deadline waiting for a report from outside, and a timer that is not one. */
@Injectable()
class Deadlines {
  @OnTimer('report-deadline', { graceAfterOutage: true })
  async reportMissing(_payload: unknown, manager: EntityManager, timer: FiredTimer) {
    const first = beforeNextFiring;
    beforeNextFiring = undefined;
    first?.();
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

  async function startReplica(
    url: string,
    outageGraceMs = GRACE_MS,
    leaseMs?: number,
    statementDeadlineMs = 2_000,
  ) {
    const dataSource = await openServiceDatabase(url, 5, statementDeadlineMs);
    const CoreModule = coreModule(dataSource, bus);
    const options = messagingOptions();
    @Module({
      imports: [
        CoreModule,
        MessagingModule.forService({
          ...options,
          timers: { ...options.timers, outageGraceMs, ...(leaseMs ? { leaseMs } : {}) },
        }),
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

  it('holds the deadlines armed before the service started and due by the end of the grace; one armed after the start fires on time', async () => {
    await schedule('report-deadline', 'while-down', new Date(Date.now() - 5_000));
    await schedule('report-deadline', 'due-soon', new Date(Date.now() + 300));
    await startReplica(db.url);
    await schedule('report-deadline', 'after-start', new Date(Date.now() + 100));

    const onTime = await fired('report-deadline', 'after-start');
    for (const key of ['while-down', 'due-soon']) {
      const held = await fired('report-deadline', key);
      expect(held.getTime() - onTime.getTime()).toBeGreaterThanOrEqual(GRACE_MS - 500);
    }
  });

  it('holds a deadline again when a second outage covers the end of its first grace', async () => {
    const target = new URL(db.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.stop());
    const poller = (await startReplica(proxy.urlFor(db.url))).get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');

    proxy.goDown();
    await waitFor('the poller to fail', () => poller.state() === 'failing');
    await schedule('report-deadline', 'twice', new Date(Date.now() + 100));
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.comeBack();
    await waitFor('the first hold', async () => {
      const row = await timer('report-deadline', 'twice');
      return row.next_attempt_at.getTime() > row.fire_at.getTime() + 1_000;
    });
    const firstEnd = (await timer('report-deadline', 'twice')).next_attempt_at.getTime();

    proxy.goDown();
    await new Promise((resolve) => setTimeout(resolve, firstEnd - Date.now() + 300));
    const back = Date.now();
    proxy.comeBack();
    const deadline = await fired('report-deadline', 'twice');
    expect(deadline.getTime() - back).toBeGreaterThanOrEqual(GRACE_MS - 300);
  });

  it('holds a deadline whose firing the outage cut, instead of waiting out its lease', async () => {
    const target = new URL(db.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.stop());
    // A lease of a minute: the claim would keep the timer that long after a failed firing.
    const poller = (await startReplica(proxy.urlFor(db.url), GRACE_MS, 60_000)).get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');
    beforeNextFiring = () => proxy.goDown();

    await schedule('report-deadline', 'cut', new Date(Date.now() + 100));
    await waitFor('the firing to be cut', () => beforeNextFiring === undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const back = Date.now();
    proxy.comeBack();
    const deadline = await fired('report-deadline', 'cut');
    expect(deadline.getTime() - back).toBeGreaterThanOrEqual(GRACE_MS - 300);
    expect(deadline.getTime() - back).toBeLessThan(15_000);
  });

  it('holds a deadline claimed by a round the database kept waiting (a stall shorter than the statement deadline)', async () => {
    const target = new URL(db.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.stop());
    const replica = await startReplica(proxy.urlFor(db.url), GRACE_MS, undefined, 10_000);
    const poller = replica.get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');
    await schedule('report-deadline', 'stalled', new Date(Date.now() + 500));
    await schedule('housekeeping', 'stalled', new Date(Date.now() + 500));

    proxy.stall();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const back = Date.now();
    proxy.resume();
    const housekept = await fired('housekeeping', 'stalled');
    expect((await timer('report-deadline', 'stalled')).fired_at).toBeNull();
    const deadline = await fired('report-deadline', 'stalled');
    expect(deadline.getTime() - back).toBeGreaterThanOrEqual(GRACE_MS - 300);
    expect(housekept.getTime()).toBeLessThan(deadline.getTime());
  });

  it('holds a deadline after a request of the process was refused for the database, though the poller never failed', async () => {
    const poller = (await startReplica(db.url)).get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');
    await schedule('report-deadline', 'refused', new Date(Date.now() + 300));
    const refusedAt = Date.now();
    noteRefusedForDatabase(refusedAt);

    const deadline = await fired('report-deadline', 'refused');
    expect(deadline.getTime() - refusedAt).toBeGreaterThanOrEqual(GRACE_MS - 300);
  });

  it('holds a deadline that fell due while the broker was away for the grace after it is back; other timers fire at once (ADR 0068)', async () => {
    const poller = (await startReplica(db.url)).get(TimerPoller);
    await waitFor('the poller to poll', () => poller.state() === 'ok');
    const bus = {};
    noteBrokerDown(bus);
    cleanups.push(() => Promise.resolve(forgetBroker(bus)));
    const due = new Date(Date.now() + 200);
    await schedule('report-deadline', 'broker-away', due);
    await schedule('housekeeping', 'broker-away', due);
    await fired('housekeeping', 'broker-away');
    // Away for longer than the grace: the deadline still waits.
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS + 500));
    expect((await timer('report-deadline', 'broker-away')).fired_at).toBeNull();

    const backAt = Date.now();
    noteBrokerUp(bus, backAt);
    const deadline = await fired('report-deadline', 'broker-away');
    expect(deadline.getTime() - backAt).toBeGreaterThanOrEqual(GRACE_MS - 300);
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
