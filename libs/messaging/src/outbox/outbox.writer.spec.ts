import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { outboxChannel } from './outbox-channel';
import { OutboxWriter } from './outbox.writer';
import {
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from './test-support/messaging-test-env';

/** pg_locks spans the server: only this suite's database counts. */
const THIS_DATABASE = '(SELECT oid FROM pg_database WHERE datname = current_database())';

describe('OutboxWriter', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let listener: Client;
  const notifications: string[] = [];
  const writer = new OutboxWriter(messagingOptions());

  beforeAll(async () => {
    db = await createTestDatabase('outbox-writer');
    ds = await openServiceDatabase(db.url);
    listener = new Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (message) => notifications.push(message.channel));
    await listener.query(`LISTEN ${outboxChannel(SCHEMA)}`);
  });
  afterAll(async () => {
    await listener?.end();
    await ds?.destroy();
    await db?.drop();
  });

  const advisoryLocks = async (granted: boolean) =>
    (
      (await ds.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted = $1 AND database = ${THIS_DATABASE}`,
        [granted],
      )) as Array<{ n: number }>
    )[0].n;
  const waitingWriters = () => advisoryLocks(false);

  /**
   * A writer that adds one event of `subject` and holds its aggregate's turn (its
   * transaction stays open) until `release`; resolves once it holds the turn.
   */
  async function holdTurn(subject: string, version: number) {
    let release!: () => void;
    const mayCommit = new Promise<void>((resolve) => (release = resolve));
    const eventId = ds.transaction(async (tx) => {
      const event = await writer.add(tx, configUpdated(subject, version));
      // The write goes out with the transaction's next statement (ADR 0067).
      await tx.query('SELECT $1::int AS one', [1]);
      await mayCommit;
      return event.id;
    });
    await waitFor('the first writer to hold its turn', async () =>
      (await advisoryLocks(true)) === 1 ? true : undefined,
    );
    return { eventId, release };
  }

  it('makes a second writer of one aggregate wait for the first to commit, so positions follow commit order', async () => {
    // The first holds the aggregate's turn; the second queues behind it.
    const { eventId: first, release: releaseFirst } = await holdTurn('config/ordered', 1);
    const second = ds.transaction(async (tx) => {
      const event = await writer.add(tx, configUpdated('config/ordered', 2));
      return event.id;
    });
    await waitFor('the second writer to wait for its turn', async () =>
      (await waitingWriters()) === 1 ? true : undefined,
    );
    const before = notifications.length;
    releaseFirst();
    const [firstId, secondId] = await Promise.all([first, second]);

    const rows = (await ds.query(
      `SELECT event_id FROM "${SCHEMA}"."outbox" WHERE subject = 'config/ordered' ORDER BY position`,
    )) as Array<{ event_id: string }>;
    expect(rows.map((row) => row.event_id)).toEqual([firstId, secondId]);
    // Each commit wakes the relay.
    await waitFor('a notification per commit', () =>
      notifications.length >= before + 2 ? true : undefined,
    );
  });

  it('writes nothing and notifies no one when the transaction rolls back', async () => {
    const before = notifications.length;
    await expect(
      ds.transaction(async (tx) => {
        await writer.add(tx, configUpdated('config/rolled-back', 1));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A later commit's notification arrives; none came for the rolled-back one before it.
    await ds.transaction((tx) => writer.add(tx, configUpdated('config/after', 1)));
    await waitFor('the later notification', () =>
      notifications.length > before ? true : undefined,
    );
    expect(notifications.length).toBe(before + 1);
    const rows = (await ds.query(
      `SELECT count(*)::int AS n FROM "${SCHEMA}"."outbox" WHERE subject = 'config/rolled-back'`,
    )) as Array<{ n: number }>;
    expect(rows[0].n).toBe(0);
  });

  it('adds several events in one statement, in their order, each aggregate waiting its turn', async () => {
    const { eventId: first, release: releaseFirst } = await holdTurn('config/batch-b', 1);
    // Two aggregates, one of them held by the first writer: the batch waits for it whole.
    const batch = ds.transaction((tx) =>
      writer.addAll(tx, [
        configUpdated('config/batch-a', 1),
        configUpdated('config/batch-b', 2),
        configUpdated('config/batch-a', 2),
      ]),
    );
    await waitFor('the batch to wait for its turn', async () =>
      (await waitingWriters()) === 1 ? true : undefined,
    );
    expect(
      (await ds.query(
        `SELECT count(*)::int AS n FROM "${SCHEMA}"."outbox" WHERE subject = 'config/batch-a'`,
      )) as Array<{ n: number }>,
    ).toEqual([{ n: 0 }]);
    releaseFirst();
    const [firstId, written] = await Promise.all([first, batch]);

    const rows = (await ds.query(
      `SELECT event_id, tenant_id, subject, event_type, event->>'id' AS envelope_id
       FROM "${SCHEMA}"."outbox" WHERE subject LIKE 'config/batch-%' ORDER BY position`,
    )) as Array<{
      event_id: string;
      tenant_id: string;
      subject: string;
      event_type: string;
      envelope_id: string;
    }>;
    expect(rows.map((row) => row.event_id)).toEqual([firstId, ...written.map((event) => event.id)]);
    expect(rows.slice(1)).toEqual(
      written.map((event) => ({
        event_id: event.id,
        tenant_id: 'tenant-a',
        subject: event.subject,
        event_type: 'config.updated',
        envelope_id: event.id,
      })),
    );
  });

  it('adds nothing for an empty list, and refuses events outside a transaction', async () => {
    await expect(ds.transaction((tx) => writer.addAll(tx, []))).resolves.toEqual([]);
    await expect(writer.addAll(ds.manager, [configUpdated('config/loose', 1)])).rejects.toThrow(
      /transaction/,
    );
  });
});
