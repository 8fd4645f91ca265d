import { Logger } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import type { MessageBus, MessageHeaders, SubscriptionHandle } from '../bus/message-bus';
import { PublishFailedError } from '../bus/messaging.errors';
import { OutboxRelay } from './outbox.relay';
import { OutboxWriter } from './outbox.writer';
import {
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from './test-support/messaging-test-env';

const OUTBOX = `"${SCHEMA}"."outbox"`;

/** A bus that records what it took and refuses what the test says, the way it says. */
class ScriptedBus implements MessageBus {
  readonly published: CloudEvent[] = [];
  refuse: (event: CloudEvent) => Error | undefined = () => undefined;

  async publish(event: CloudEvent, _headers?: MessageHeaders): Promise<void> {
    const error = this.refuse(event);
    if (error) throw error;
    this.published.push(event);
  }
  subscribe(): Promise<SubscriptionHandle> {
    throw new Error('not used');
  }
  isReady(): boolean {
    return true;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('outbox relay: failures, parking and the active relay', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const writer = new OutboxWriter(messagingOptions());
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('relay-failures');
    ds = await openServiceDatabase(db.url);
  });
  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await ds.query(`DELETE FROM ${OUTBOX}`);
  });
  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  function startRelay(bus: MessageBus, dataSource = ds, maxAttempts = 3): OutboxRelay {
    const relay = new OutboxRelay(dataSource, bus, messagingOptions({ relay: { maxAttempts } }));
    relay.start();
    relays.push(relay);
    return relay;
  }
  const write = (subject: string, version: number) =>
    ds.transaction((tx) => writer.add(tx, configUpdated(subject, version)));
  const row = async (id: string) => {
    const [found] = await ds.query(
      `SELECT attempts, last_error, dead_at, published_at FROM ${OUTBOX} WHERE event_id = $1`,
      [id],
    );
    return found as {
      attempts: number;
      last_error: string | null;
      dead_at: Date | null;
      published_at: Date | null;
    };
  };

  it('parks a row that fails on its own N times, keeps its aggregate behind it until then, and publishes every other aggregate', async () => {
    const bus = new ScriptedBus();
    const poison = await write('bad-1', 1);
    bus.refuse = (event) => (event.id === poison.id ? new Error('payload too large') : undefined);
    const behind = await write('bad-1', 2);
    const others = [await write('good-1', 1), await write('good-2', 1)];
    startRelay(bus);

    await waitFor('the poison row parked', async () => (await row(poison.id)).dead_at !== null);
    expect(await row(poison.id)).toMatchObject({
      attempts: 3,
      last_error: 'payload too large',
      published_at: null,
    });
    for (const event of others) expect((await row(event.id)).published_at).not.toBeNull();
    // Once parked, the aggregate moves on (the parked row stays visible and replayable).
    await waitFor(
      'the row behind it published',
      async () => (await row(behind.id)).published_at !== null,
    );
    expect(bus.published.map((event) => event.id)).not.toContain(poison.id);
  });

  it('never counts an outage (refused, unroutable, unconfirmed) as an attempt, and publishes once it ends', async () => {
    const bus = new ScriptedBus();
    let outage = true;
    bus.refuse = (event) =>
      outage
        ? new PublishFailedError(event.id, 'no queue is bound to config.updated (returned)')
        : undefined;
    const event = await write('outage-1', 1);
    startRelay(bus);

    await waitFor('several refused publishes', async () =>
      ((await row(event.id)).last_error ?? '').includes('returned'),
    );
    // Longer than maxAttempts failures would take, had they counted.
    await waitFor('more refusals', async () => {
      const refused = (await ds.query(
        `SELECT next_attempt_at > now() + interval '150 milliseconds' AS waiting FROM ${OUTBOX} WHERE event_id = $1`,
        [event.id],
      )) as Array<{ waiting: boolean }>;
      return refused[0]?.waiting;
    });
    expect(await row(event.id)).toMatchObject({ attempts: 0, dead_at: null, published_at: null });

    outage = false;
    await waitFor(
      'the event published after the outage',
      async () => (await row(event.id)).published_at !== null,
      {
        timeoutMs: 20_000,
      },
    );
    expect(bus.published.map((e) => e.id)).toEqual([event.id]);
  });

  it('reports an outage in one line, not one per event and round, and says when publishing works again', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const notes = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const bus = new ScriptedBus();
      let outage = true;
      let refusals = 0;
      bus.refuse = (event) => {
        if (!outage) return undefined;
        refusals += 1;
        return new PublishFailedError(event.id, 'not confirmed within 10000 ms');
      };
      const events = [];
      for (let n = 0; n < 10; n += 1) events.push(await write(`quiet-${n}`, 1));
      startRelay(bus);
      // Each of the ten aggregates refused in at least three rounds.
      await waitFor('three rounds of refusals', () => refusals >= 30);

      const relayLines = (spy: jest.SpyInstance) =>
        spy.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('publish'));
      expect(relayLines(warnings)).toEqual([
        expect.stringMatching(
          /^publishing config\.updated .* failed \(the broker or the network, not counted\)/,
        ),
      ]);

      outage = false;
      await waitFor('every event published', async () => bus.published.length === events.length);
      // Said once the batch is marked published, which follows the last publish.
      const again = await waitFor('the relay saying so', () => relayLines(notes)[0]);
      expect(relayLines(notes)).toEqual([
        expect.stringMatching(/^publishing works again after \d+ failed publish\(es\)/),
      ]);
      expect(Number(/after (\d+)/.exec(again)?.[1])).toBeGreaterThanOrEqual(30);
    } finally {
      warnings.mockRestore();
      notes.mockRestore();
    }
  });

  it('lets one relay per schema publish; a standby takes over when its connection ends', async () => {
    const busA = new ScriptedBus();
    const busB = new ScriptedBus();
    const replicaA = await openServiceDatabase(db.url);
    const replicaB = await openServiceDatabase(db.url);
    try {
      const a = startRelay(busA, replicaA);
      await waitFor('A to become the active relay', () => a.isLeader());
      const b = startRelay(busB, replicaB);
      const first = await write('lead-1', 1);
      await waitFor(
        'the first event published',
        async () => (await row(first.id)).published_at !== null,
      );
      expect(busA.published.map((e) => e.id)).toEqual([first.id]);
      expect(b.isLeader()).toBe(false);

      await a.stop();
      await waitFor('B to take over', () => b.isLeader(), { timeoutMs: 10_000 });
      const second = await write('lead-1', 2);
      await waitFor(
        'the second event published',
        async () => (await row(second.id)).published_at !== null,
      );
      expect(busB.published.map((e) => e.id)).toEqual([second.id]);
    } finally {
      for (const relay of relays.splice(0)) await relay.stop();
      await replicaA.destroy();
      await replicaB.destroy();
    }
  });
});
