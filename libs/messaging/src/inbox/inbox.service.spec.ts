import { createCloudEvent, type CloudEvent } from '@comanda/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import {
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  recordEffect,
  SCHEMA,
} from '../outbox/test-support/messaging-test-env';
import { Inbox } from './inbox.service';

describe('Inbox.handleOnce', () => {
  let db: TestDatabase;
  let replicaA: DataSource;
  let replicaB: DataSource;
  let inboxA: Inbox;
  let inboxB: Inbox;

  beforeAll(async () => {
    db = await createTestDatabase('inbox');
    replicaA = await openServiceDatabase(db.url);
    replicaB = await openServiceDatabase(db.url);
    inboxA = new Inbox(replicaA, messagingOptions());
    inboxB = new Inbox(replicaB, messagingOptions());
  });
  afterAll(async () => {
    await replicaA.destroy();
    await replicaB.destroy();
    await db.drop();
  });

  const anEvent = (subject: string): CloudEvent =>
    createCloudEvent('/comanda/test', configUpdated(subject, 1));

  async function effects(consumer: string): Promise<string[]> {
    const rows: Array<{ event_id: string }> = await replicaA.query(
      `SELECT event_id FROM "${SCHEMA}"."effects" WHERE consumer = $1`,
      [consumer],
    );
    return rows.map((row) => row.event_id);
  }

  it('makes the effect on the first delivery and skips a redelivery', async () => {
    const event = anEvent('inbox-1');
    const effect = jest.fn((manager) => recordEffect(manager, 'orders.on-config', event));

    expect(await inboxA.handleOnce('orders.on-config', event, effect)).toBe(true);
    expect(await inboxA.handleOnce('orders.on-config', event, effect)).toBe(false);

    expect(effect).toHaveBeenCalledTimes(1);
    expect(await effects('orders.on-config')).toEqual([event.id]);
    expect(await inboxA.hasHandled('orders.on-config', event.id)).toBe(true);
  });

  it('lets each consumer handle the same event once', async () => {
    const event = anEvent('inbox-2');
    expect(
      await inboxA.handleOnce('first.consumer', event, (m) =>
        recordEffect(m, 'first.consumer', event),
      ),
    ).toBe(true);
    expect(
      await inboxA.handleOnce('second.consumer', event, (m) =>
        recordEffect(m, 'second.consumer', event),
      ),
    ).toBe(true);
    expect(await effects('first.consumer')).toEqual([event.id]);
    expect(await effects('second.consumer')).toEqual([event.id]);
  });

  it('makes one effect when two replicas receive the same event at the same time', async () => {
    const event = anEvent('inbox-3');
    const slowEffect =
      (inboxName: string) => async (manager: Parameters<typeof recordEffect>[0]) => {
        // Hold the transaction open so the other delivery arrives while this one is undecided.
        await manager.query('SELECT pg_sleep(0.3)');
        await recordEffect(manager, 'race.consumer', event);
        ran.push(inboxName);
      };
    const ran: string[] = [];

    const outcomes = await Promise.all([
      inboxA.handleOnce('race.consumer', event, slowEffect('a')),
      inboxB.handleOnce('race.consumer', event, slowEffect('b')),
    ]);

    expect(outcomes.sort()).toEqual([false, true]);
    expect(ran).toHaveLength(1);
    expect(await effects('race.consumer')).toEqual([event.id]);
  });

  it('runs the effect again on redelivery when the first attempt threw, keeping none of its writes', async () => {
    const event = anEvent('inbox-4');
    await expect(
      inboxA.handleOnce('flaky.consumer', event, async (manager) => {
        await recordEffect(manager, 'flaky.consumer', event);
        throw new Error('downstream failed');
      }),
    ).rejects.toThrow('downstream failed');
    expect(await effects('flaky.consumer')).toEqual([]);
    expect(await inboxA.hasHandled('flaky.consumer', event.id)).toBe(false);

    expect(
      await inboxB.handleOnce('flaky.consumer', event, (m) =>
        recordEffect(m, 'flaky.consumer', event),
      ),
    ).toBe(true);
    expect(await effects('flaky.consumer')).toEqual([event.id]);
  });

  it('lets a waiting duplicate take over when the first delivery rolls back', async () => {
    const event = anEvent('inbox-5');
    let markWritten!: () => void;
    const firstHoldsTheMark = new Promise<void>((resolve) => (markWritten = resolve));
    const first = inboxA.handleOnce('takeover.consumer', event, async (manager) => {
      markWritten();
      await manager.query('SELECT pg_sleep(0.3)');
      throw new Error('first attempt failed');
    });
    await firstHoldsTheMark;
    const second = inboxB.handleOnce('takeover.consumer', event, (m) =>
      recordEffect(m, 'takeover.consumer', event),
    );

    await expect(first).rejects.toThrow('first attempt failed');
    expect(await second).toBe(true);
    expect(await effects('takeover.consumer')).toEqual([event.id]);
  });

  it('forgets its own marks older than the inbox retention, and only those', async () => {
    const old = anEvent('inbox-old');
    const recent = anEvent('inbox-recent');
    await inboxA.handleOnce('pruned.consumer', old, async () => undefined);
    await inboxA.handleOnce('pruned.consumer', recent, async () => undefined);
    await replicaA.query(
      `UPDATE "${SCHEMA}"."inbox" SET processed_at = now() - interval '31 days' WHERE event_id = $1`,
      [old.id],
    );

    // The inbox cleans its own table (no other component touches it), in the background.
    const inbox = new Inbox(
      replicaA,
      messagingOptions({ relay: { cleanupEveryMs: 50, inboxRetentionMs: 30 * 24 * 3_600_000 } }),
    );
    inbox.startCleanup();
    try {
      await waitFor(
        'the old inbox mark to be pruned',
        async () => !(await inboxA.hasHandled('pruned.consumer', old.id)),
      );
    } finally {
      await inbox.stopCleanup();
    }
    expect(await inboxA.hasHandled('pruned.consumer', recent.id)).toBe(true);
  });
});
