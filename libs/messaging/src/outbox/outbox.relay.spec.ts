import { runWithContext } from '@comanda/context';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  DEFAULT_RETRY_POLICY,
  type MessageBus,
  type MessageHeaders,
  type SubscriptionHandle,
} from '../bus/message-bus';
import { InProcessBus } from '../in-process/in-process-bus';
import { Inbox } from '../inbox/inbox.service';
import { OutboxOutsideTransactionError } from './outbox.errors';
import { OutboxRelay } from './outbox.relay';
import { OutboxWriter } from './outbox.writer';
import {
  BUS_KINDS,
  configUpdated,
  messagingOptions,
  ObservedBus,
  openServiceDatabase,
  recordEffect,
  SCHEMA,
  type BusUnderTest,
} from './test-support/messaging-test-env';

const OUTBOX = `"${SCHEMA}"."outbox"`;
const EFFECTS = `"${SCHEMA}"."effects"`;

/** A bus whose publish runs `script`, which publishes the event through `publish` (or not). */
class HookedBus extends ObservedBus {
  constructor(
    inner: MessageBus,
    private readonly script: (event: CloudEvent, publish: () => Promise<void>) => Promise<void>,
  ) {
    super(inner);
  }

  override publish(event: CloudEvent, headers?: MessageHeaders): Promise<void> {
    return this.script(event, () => super.publish(event, headers));
  }
}

describe.each(BUS_KINDS)('outbox relay and inbox on the %s bus', (kind, createBus) => {
  let db: TestDatabase;
  let env: BusUnderTest;
  let ds: DataSource;
  const writer = new OutboxWriter(messagingOptions());
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    db = await createTestDatabase(`outbox-${kind}`);
    ds = await openServiceDatabase(db.url);
  });
  // A bus (exchange) per test: queues of earlier tests must not hold up publishing.
  beforeEach(async () => {
    env = await createBus(`outbox-${kind}`);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await env.close();
  });
  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  function startRelay(dataSource: DataSource, bus: MessageBus, leaseMs = 2_000): OutboxRelay {
    const relay = new OutboxRelay(dataSource, bus, messagingOptions({ relay: { leaseMs } }));
    relay.start();
    cleanups.push(() => relay.stop());
    return relay;
  }

  async function openReplica(): Promise<DataSource> {
    const replica = await openServiceDatabase(db.url);
    cleanups.push(async () => {
      if (replica.isInitialized) await replica.destroy();
    });
    return replica;
  }

  /** A consumer that records every delivery and makes its effect through the inbox. */
  async function consume(
    queue: string,
    dataSource: DataSource,
    deliveries: string[],
  ): Promise<void> {
    // The subscription declares its retry queues (the default policy) as well.
    env.track(queue, DEFAULT_RETRY_POLICY.delaysMs);
    const inbox = new Inbox(dataSource, messagingOptions());
    const handle: SubscriptionHandle = await env.connect().subscribe({
      queue,
      eventTypes: [EventTypes.ConfigUpdated],
      handler: async ({ event }) => {
        deliveries.push(event.id);
        await inbox.handleOnce(queue, event, (manager) => recordEffect(manager, queue, event));
      },
    });
    cleanups.push(() => handle.cancel());
  }

  async function effectsOf(
    consumer: string,
  ): Promise<Array<{ event_id: string; subject: string; version: number }>> {
    return ds.query(
      `SELECT event_id, subject, version FROM ${EFFECTS} WHERE consumer = $1 ORDER BY seq`,
      [consumer],
    );
  }

  async function isPublished(eventId: string): Promise<boolean> {
    const rows: Array<{ published: boolean }> = await ds.query(
      `SELECT published_at IS NOT NULL AS published FROM ${OUTBOX} WHERE event_id = $1`,
      [eventId],
    );
    return rows[0]?.published === true;
  }

  it('delivers the event again when a relay dies between the broker confirm and the mark, and the consumer makes its effect once', async () => {
    const consumer = 'crash.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);

    const doomedDs = await openReplica();
    const doomedBus = new ObservedBus(env.connect(), async () => {
      // The process dies right after the broker took the message: no mark is ever written.
      await doomedDs.destroy();
    });
    const doomed = startRelay(doomedDs, doomedBus, 1_000);
    const event = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('crash-1', 1)),
    );

    await waitFor('the first relay to publish and die', () => !doomedDs.isInitialized);
    await doomed.stop();
    expect(await isPublished(event.id)).toBe(false);

    startRelay(ds, env.connect(), 1_000);
    await waitFor('the new relay to publish and mark the event', () => isPublished(event.id));
    await waitFor(
      'the second delivery',
      () => deliveries.filter((id) => id === event.id).length === 2,
    );
    await waitFor('the effect', async () => (await effectsOf(consumer)).length === 1);
    expect(await effectsOf(consumer)).toEqual([
      { event_id: event.id, subject: 'crash-1', version: 1 },
    ]);
  });

  it('with two relays (one active, one standing by) and two competing consumers, every event takes effect once and each aggregate is published in order', async () => {
    const consumer = 'scale.effects';
    const deliveries: string[] = [];
    const replicaA = await openReplica();
    const replicaB = await openReplica();
    await consume(consumer, replicaA, deliveries);
    await consume(consumer, replicaB, deliveries);
    const published: Array<{ relay: string; subject: string; version: number; id: string }> = [];
    const observe = (relay: string) => (event: CloudEvent) => {
      published.push({
        relay,
        subject: event.subject,
        version: (event.data as { version: number }).version,
        id: event.id,
      });
    };
    startRelay(replicaA, new ObservedBus(env.connect(), observe('a')));
    startRelay(replicaB, new ObservedBus(env.connect(), observe('b')));

    const aggregates = Array.from({ length: 8 }, (_, i) => `scale-${i}`);
    const versions = Array.from({ length: 40 }, (_, i) => i + 1);
    for (const version of versions) {
      await Promise.all(
        aggregates.map((subject) =>
          ds.transaction((manager) => writer.add(manager, configUpdated(subject, version))),
        ),
      );
    }
    const total = aggregates.length * versions.length;

    await waitFor(`${total} effects`, async () => (await effectsOf(consumer)).length >= total, {
      timeoutMs: 30_000,
    });
    const effects = await effectsOf(consumer);
    expect(effects).toHaveLength(total);
    expect(new Set(effects.map((effect) => effect.event_id)).size).toBe(total);

    expect(published).toHaveLength(total); // no event published twice: one relay is active
    for (const subject of aggregates) {
      expect(published.filter((p) => p.subject === subject).map((p) => p.version)).toEqual(
        versions,
      );
    }
  });

  it("marks a batch without waiting for its WAL flush, and leaves the connection's other commits waiting for theirs", async () => {
    // A statement trigger records the commit setting the relay's mark runs under.
    await ds.query(`CREATE TABLE "${SCHEMA}".mark_settings (setting text NOT NULL)`);
    await ds.query(`CREATE FUNCTION "${SCHEMA}".record_mark_setting() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO "${SCHEMA}".mark_settings VALUES (current_setting('synchronous_commit'));
        RETURN NULL;
      END $$`);
    await ds.query(`CREATE TRIGGER record_mark_setting AFTER UPDATE OF published_at ON ${OUTBOX}
      FOR EACH STATEMENT EXECUTE FUNCTION "${SCHEMA}".record_mark_setting()`);
    cleanups.push(() =>
      ds.query(`DROP TABLE "${SCHEMA}".mark_settings;
        DROP TRIGGER record_mark_setting ON ${OUTBOX};
        DROP FUNCTION "${SCHEMA}".record_mark_setting()`),
    );
    const relayDs = await openReplica();
    startRelay(relayDs, env.connect());
    const event = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('flush-1', 1)),
    );
    await waitFor('the relay to mark the event', () => isPublished(event.id));

    expect(await ds.query(`SELECT setting FROM "${SCHEMA}".mark_settings`)).toEqual([
      { setting: 'off' },
    ]);
    // Whichever of the relay's pooled connections marked it, each still commits with a flush.
    const connections = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const runner = relayDs.createQueryRunner();
        await runner.connect();
        return runner;
      }),
    );
    for (const runner of connections) {
      expect(await runner.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
      await runner.release();
    }
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    const consumer = 'rollback.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);
    startRelay(ds, env.connect());

    let rolledBack: CloudEvent | undefined;
    await expect(
      ds.transaction(async (manager) => {
        rolledBack = await writer.add(manager, configUpdated('rollback-1', 1));
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const committed = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('rollback-1', 2)),
    );

    await waitFor(
      'the committed event to take effect',
      async () => (await effectsOf(consumer)).length === 1,
    );
    expect(await effectsOf(consumer)).toEqual([
      { event_id: committed.id, subject: 'rollback-1', version: 2 },
    ]);
    expect(deliveries).not.toContain(rolledBack?.id);
    expect(await ds.query(`SELECT 1 FROM ${OUTBOX} WHERE event_id = $1`, [rolledBack?.id])).toEqual(
      [],
    );
  });

  it('keeps retrying while the bus rejects and publishes everything, in order, once it accepts again', async () => {
    const consumer = 'refused.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);
    const published: string[] = [];
    const bus = new ObservedBus(env.connect(), (event) => {
      published.push(`${event.subject}#${(event.data as { version: number }).version}`);
    });
    bus.refusing = 'broker unavailable';
    startRelay(ds, bus);

    const written: CloudEvent[] = [];
    for (const version of [1, 2, 3]) {
      for (const subject of ['refused-1', 'refused-2']) {
        written.push(
          await ds.transaction((manager) => writer.add(manager, configUpdated(subject, version))),
        );
      }
    }
    const failing = await waitFor('several rejected attempts of the first event', async () => {
      const [row]: Array<{ attempts: number; last_error: string | null }> = await ds.query(
        `SELECT attempts, last_error FROM ${OUTBOX} WHERE event_id = $1`,
        [written[0].id],
      );
      return row.attempts >= 3 && row;
    });
    expect(failing.last_error).toBe('broker unavailable');
    expect(await effectsOf(consumer)).toEqual([]);

    bus.refusing = undefined;
    await waitFor(
      'every event to take effect',
      async () => (await effectsOf(consumer)).length === written.length,
    );
    expect(new Set((await effectsOf(consumer)).map((e) => e.event_id))).toEqual(
      new Set(written.map((e) => e.id)),
    );
    expect(published.filter((p) => p.startsWith('refused-1#'))).toEqual([
      'refused-1#1',
      'refused-1#2',
      'refused-1#3',
    ]);
    expect(published.filter((p) => p.startsWith('refused-2#'))).toEqual([
      'refused-2#1',
      'refused-2#2',
      'refused-2#3',
    ]);
  });

  // RabbitMQ queues a channel's messages in the order sent; the in-process bus confirms once
  // the message is handled, so the relay waits for each there (ADR 0064).
  const backToBack = kind === 'RabbitMQ';

  it(`sends an aggregate's rows in order, ${backToBack ? 'the later ones without waiting for the confirm of the earlier' : 'each after the confirm of the one before'}`, async () => {
    const consumer = 'back-to-back.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);
    const sent: string[] = [];
    let confirmFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (confirmFirst = resolve));
    // The first row's confirm is held until the second row is sent, or for 1 s: a relay that
    // waits for each confirm sends the second only then.
    const holding = setTimeout(confirmFirst, 1_000);
    cleanups.push(async () => clearTimeout(holding));
    let sentBeforeFirstConfirmed = false;
    let firstConfirmed = false;
    const bus = new HookedBus(env.connect(), async (event, publish) => {
      const version = (event.data as { version: number }).version;
      sent.push(`${event.subject}#${version}`);
      if (version === 1) {
        await publish();
        await firstHeld;
        firstConfirmed = true;
        return;
      }
      sentBeforeFirstConfirmed = !firstConfirmed;
      confirmFirst();
      await publish();
    });
    const written = await ds.transaction(async (manager) => [
      await writer.add(manager, configUpdated('back-to-back', 1)),
      await writer.add(manager, configUpdated('back-to-back', 2)),
    ]);
    startRelay(ds, bus);

    await waitFor('both events to take effect', async () => {
      return (await effectsOf(consumer)).length === 2;
    });
    expect(sent).toEqual(['back-to-back#1', 'back-to-back#2']);
    expect(sentBeforeFirstConfirmed).toBe(backToBack);
    expect(new Set((await effectsOf(consumer)).map((e) => e.event_id))).toEqual(
      new Set(written.map((e) => e.id)),
    );
    await waitFor('both rows marked published', async () => {
      return (await Promise.all(written.map((e) => isPublished(e.id)))).every(Boolean);
    });
  });

  it(`${backToBack ? 'marks the rows the broker confirmed when an earlier row of their aggregate is refused' : 'holds back the rows after a refused one'}, and publishes the refused row again, each once`, async () => {
    const consumer = 'refused-first.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);
    const confirmed: string[] = [];
    let refusals = 0;
    const bus = new HookedBus(env.connect(), async (event, publish) => {
      const version = (event.data as { version: number }).version;
      if (version === 1 && refusals === 0) {
        refusals += 1;
        throw new Error('refused once');
      }
      await publish();
      confirmed.push(`${event.subject}#${version}`);
    });
    const written = await ds.transaction(async (manager) => [
      await writer.add(manager, configUpdated('refused-first', 1)),
      await writer.add(manager, configUpdated('refused-first', 2)),
      await writer.add(manager, configUpdated('refused-first', 3)),
    ]);
    startRelay(ds, bus);

    await waitFor('every event to take effect', async () => {
      return (await effectsOf(consumer)).length === 3;
    });
    // Back to back, 2 and 3 went out with the refused one and reached the consumer first; the
    // refused row went again after its back-off. One by one, 2 and 3 waited for it.
    expect(confirmed).toEqual(
      backToBack
        ? ['refused-first#2', 'refused-first#3', 'refused-first#1']
        : ['refused-first#1', 'refused-first#2', 'refused-first#3'],
    );
    expect(refusals).toBe(1);
    expect(new Set(deliveries)).toEqual(new Set(written.map((e) => e.id)));
    expect(deliveries).toHaveLength(3);
    const attempts: Array<{ attempts: number }> = await ds.query(
      `SELECT attempts FROM ${OUTBOX} WHERE event_id = ANY($1) ORDER BY position`,
      [written.map((e) => e.id)],
    );
    expect(attempts).toEqual([{ attempts: 1 }, { attempts: 0 }, { attempts: 0 }]);
  });

  it('drains every pending event on demand, as on shutdown', async () => {
    const consumer = 'drain.effects';
    const deliveries: string[] = [];
    await consume(consumer, ds, deliveries);
    const relay = new OutboxRelay(ds, env.connect(), messagingOptions());
    for (const version of [1, 2, 3]) {
      await ds.transaction((manager) => writer.add(manager, configUpdated('drain-1', version)));
    }

    expect(await relay.drain()).toBe(3);
    await waitFor(
      'the drained events to take effect',
      async () => (await effectsOf(consumer)).length === 3,
    );
    expect((await effectsOf(consumer)).map((e) => e.version).sort()).toEqual([1, 2, 3]);
  });
});

describe('outbox writer and relay wake-up', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let bus: InProcessBus;
  const writer = new OutboxWriter(messagingOptions());

  beforeAll(async () => {
    db = await createTestDatabase('outbox-writer');
    ds = await openServiceDatabase(db.url);
    bus = new InProcessBus();
  });
  afterAll(async () => {
    await bus.close();
    await ds.destroy();
    await db.drop();
  });

  it('refuses to write an event outside a transaction', async () => {
    await expect(writer.add(ds.manager, configUpdated('outside-1', 1))).rejects.toThrow(
      OutboxOutsideTransactionError,
    );
    const runner = ds.createQueryRunner();
    try {
      await expect(writer.add(runner.manager, configUpdated('outside-1', 1))).rejects.toMatchObject(
        {
          code: 'messaging.outbox_outside_transaction',
        },
      );
    } finally {
      await runner.release();
    }
    expect(await ds.query(`SELECT 1 FROM ${OUTBOX}`)).toEqual([]);
  });

  it('writes the CloudEvent with the request id and trace context of the current work', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const event = await runWithContext({ requestId: 'req-42', traceparent }, () =>
      ds.transaction((manager) => writer.add(manager, configUpdated('headers-1', 1))),
    );
    expect(event).toMatchObject({
      specversion: '1.0',
      source: '/comanda/svc',
      type: 'config.updated',
      tenantid: 'tenant-a',
      subject: 'headers-1',
    });
    const [row] = await ds.query(`SELECT event, headers FROM ${OUTBOX} WHERE event_id = $1`, [
      event.id,
    ]);
    expect(row).toEqual({ event, headers: { requestId: 'req-42', traceparent } });
  });

  it('publishes on NOTIFY without waiting for the poll, and listens again after its connection drops', async () => {
    const received: string[] = [];
    const handle = await bus.subscribe({
      queue: 'svc.notify',
      eventTypes: [EventTypes.ConfigUpdated],
      handler: async ({ event }) => {
        received.push(event.id);
      },
    });
    const relay = new OutboxRelay(ds, bus, messagingOptions({ relayPollMs: 60_000 }));
    const listenerPid = async (): Promise<number | undefined> => {
      const rows: Array<{ pid: number }> = await ds.query(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'comanda-outbox-listener-${SCHEMA}'`,
      );
      return rows[0]?.pid;
    };
    // Written by another process (its own data source): the relay's own commits wake it
    // without the notification (see the test below).
    const elsewhere = await openServiceDatabase(db.url);
    relay.start();
    try {
      const firstPid = await waitFor('the relay to listen', listenerPid);
      const first = await elsewhere.transaction((manager) =>
        writer.add(manager, configUpdated('notify-1', 1)),
      );
      await waitFor('the notified event', () => received.includes(first.id), { timeoutMs: 5_000 });

      await ds.query('SELECT pg_terminate_backend($1)', [firstPid]);
      await waitFor('a new listener', async () => {
        const pid = await listenerPid();
        return pid !== undefined && pid !== firstPid;
      });
      const second = await elsewhere.transaction((manager) =>
        writer.add(manager, configUpdated('notify-1', 2)),
      );
      await waitFor('the event notified on the new listener', () => received.includes(second.id), {
        timeoutMs: 5_000,
      });
    } finally {
      await relay.stop();
      await handle.cancel();
      await elsewhere.destroy();
    }
  });
});

/**
 * A transaction of the relay's own process that wrote to the outbox wakes the relay when it
 * commits, without the round trip of its notification through the database (ADR 0062).
 */
describe('outbox relay woken at the commits of its own data source', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let bus: InProcessBus;
  let received: string[];
  // Polls once an hour: only a wake-up publishes within a test.
  const options = messagingOptions({ relayPollMs: 3_600_000 });
  const writer = new OutboxWriter(options);
  const relays: OutboxRelay[] = [];
  type Listening = { listener?: { query(sql: string): Promise<unknown> } };
  const listenerOf = (relay: OutboxRelay) => (relay as unknown as Listening).listener;

  beforeAll(async () => {
    db = await createTestDatabase('outbox-commit-wake');
    ds = await openServiceDatabase(db.url);
  });
  beforeEach(async () => {
    bus = new InProcessBus();
    received = [];
    await bus.subscribe({
      queue: 'svc.commit-wake',
      eventTypes: [EventTypes.ConfigUpdated],
      handler: async ({ event }) => {
        received.push(event.id);
      },
    });
  });
  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await bus.close();
  });
  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  function relay(): OutboxRelay {
    const created = new OutboxRelay(ds, bus, options);
    relays.push(created);
    return created;
  }

  it('publishes at the commit, not when the notification comes back', async () => {
    const leader = relay();
    leader.start();
    await waitFor('the relay to lead', () => leader.isLeader());
    // Its listener stops hearing the writers' notifications (it keeps the leader's lock).
    await listenerOf(leader)?.query('UNLISTEN *');
    const event = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('commit-wake-1', 1)),
    );
    await waitFor('the event published', () => received.includes(event.id), { timeoutMs: 5_000 });
    // A rolled-back write wakes nothing and leaves nothing behind for the next commit.
    await ds
      .transaction(async (manager) => {
        await writer.add(manager, configUpdated('commit-wake-2', 1));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    const next = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('commit-wake-3', 1)),
    );
    await waitFor('the next event published', () => received.includes(next.id), {
      timeoutMs: 5_000,
    });
    expect(received).toEqual([event.id, next.id]);
  });

  it('wakes the leader at the commit though a standby was started before it', async () => {
    const standby = relay();
    const leader = relay();
    // Another holder of the schema's leader lock keeps both standing by while they start.
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [
        'comanda:outbox-relay',
        SCHEMA,
      ]);
      standby.start();
      await waitFor('the standby to listen', () => listenerOf(standby) !== undefined);
      leader.start();
      await waitFor('the other relay to listen', () => listenerOf(leader) !== undefined);
    } finally {
      await holder.end();
    }
    // The second one takes the lead; it will hear no notification.
    await waitFor('the second relay to lead', async () => {
      await leader.publishBatch();
      return leader.isLeader();
    });
    expect(standby.isLeader()).toBe(false);
    await listenerOf(leader)?.query('UNLISTEN *');
    const event = await ds.transaction((manager) =>
      writer.add(manager, configUpdated('commit-wake-standby', 1)),
    );
    await waitFor('the event published', () => received.includes(event.id), { timeoutMs: 5_000 });
  });
});

/**
 * The listener connection is outside the pool, so outside the statement deadline's watch: a
 * server that stops answering it (a frozen host, a network that drops the way back) must not
 * hold the relay's rounds for good.
 */
describe('outbox relay whose listener connection stalls', () => {
  it.each([
    ['its LISTEN', 'LISTEN'],
    ['its leader lock', 'pg_try_advisory_lock'],
  ])(
    'closes the listener when the server does not answer %s in time, listens again and publishes',
    async (_what, statement) => {
      const db = await createTestDatabase('outbox-listener-stall');
      const target = new URL(db.url);
      const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      const ds = await openServiceDatabase(proxy.urlFor(db.url), 5, 1_000);
      const bus = new InProcessBus();
      const received: string[] = [];
      const handle = await bus.subscribe({
        queue: 'svc.stalled-listener',
        eventTypes: [EventTypes.ConfigUpdated],
        handler: async ({ event }) => {
          received.push(event.id);
        },
      });
      const relay = new OutboxRelay(ds, bus, messagingOptions());
      try {
        // The statement reaches PostgreSQL (which takes the lock), its answer never comes back.
        proxy.holdAnswersAfter(statement);
        relay.start();
        const event = await ds.transaction((manager) =>
          new OutboxWriter(messagingOptions()).add(manager, configUpdated('stalled-1', 1)),
        );
        await waitFor('the event published after the stalled listener', () =>
          received.includes(event.id),
        );
      } finally {
        proxy.resume();
        await relay.stop();
        await handle.cancel();
        await bus.close();
        await ds.destroy();
        await proxy.stop();
        await db.drop();
      }
    },
  );
});
