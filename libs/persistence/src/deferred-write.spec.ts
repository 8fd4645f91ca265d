import type { TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { deferWrite, WriteOutsideTransactionError } from './sql-rows';
import { expectOutsideTransaction, oneConnection, roundTrips } from './test-support/pipelining';
import { rolledBack } from './unit-of-work';

/**
 * A write whose answer the transaction does not need goes out with the transaction's next
 * statement or its COMMIT (prepared-statements.ts, ADR 0067): the same writes, in the same
 * order and transaction, fewer round trips; a refusal still fails the transaction.
 */
describe('writes deferred to the next statement of their transaction', () => {
  let db: TestDatabase;
  let source: DataSource;
  const outsideTransaction = () => expectOutsideTransaction(source);
  const INSERT = `INSERT INTO deferred_w.notes (id, n) VALUES ($1, $2)`;
  const notes = async () =>
    (await source.query(`SELECT id, n FROM deferred_w.notes ORDER BY id`)) as Array<{
      id: string;
      n: number;
    }>;
  const XID = `SELECT pg_current_xact_id()::text AS xid WHERE $1::int = 1`;

  beforeAll(async () => {
    ({ db, source } = await oneConnection(
      'deferred_write',
      'deferred_w',
      `CREATE TABLE deferred_w.notes (id text PRIMARY KEY, n integer NOT NULL CHECK (n >= 0),
         xid text NOT NULL DEFAULT pg_current_xact_id()::text)`,
    ));
    // Named and parsed on the connection, as a running service's statements are.
    for (let i = 0; i < 3; i++) await source.transaction((tx) => tx.query(XID, [1]));
  });
  beforeEach(() => source.query(`TRUNCATE deferred_w.notes`));
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('sends the writes with the next statement, which sees them, in one transaction', async () => {
    let seen: unknown;
    let xid = '';
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        [{ xid }] = await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['a', 1]);
        await deferWrite(tx, `${INSERT} RETURNING id, n`, ['b', 2]);
        seen = await tx.query(`SELECT id FROM deferred_w.notes WHERE n > $1 ORDER BY id`, [0]);
      }),
    );
    // BEGIN with the first read; both writes with the second; the COMMIT.
    expect(trips).toBe(3);
    // Its own rows only: not the writes' completions.
    expect(seen).toEqual([{ id: 'a' }, { id: 'b' }]);
    const written = (await source.query(`SELECT DISTINCT xid FROM deferred_w.notes`)) as unknown[];
    expect(written).toEqual([{ xid }]);
    await outsideTransaction();
  });

  it('sends writes nothing followed with the COMMIT: BEGIN, writes and COMMIT in one round trip', async () => {
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        await deferWrite(tx, INSERT, ['a', 1]);
        await deferWrite(tx, `${INSERT} RETURNING id`, ['b', 2]);
      }),
    );
    expect(trips).toBe(1);
    expect(await notes()).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    await outsideTransaction();
  });

  it('fails the next statement with a refused write, and commits none of the transaction', async () => {
    await source.query(INSERT, ['taken', 1]);
    await expect(
      source.transaction(async (tx) => {
        await deferWrite(tx, INSERT, ['new', 1]);
        await deferWrite(tx, INSERT, ['taken', 2]);
        await tx.query(XID, [1]);
        throw new Error('not reached: the read answers with the refusal');
      }),
    ).rejects.toMatchObject({ driverError: { code: '23505' } });
    expect(await notes()).toEqual([{ id: 'taken', n: 1 }]);
    await outsideTransaction();
    expect(await source.transaction((tx) => tx.query(XID, [1]))).toEqual([
      { xid: expect.any(String) },
    ]);
  });

  it('fails the COMMIT with a refused write, and commits none of the transaction', async () => {
    await expect(
      source.transaction(async (tx) => {
        await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['new', 1]);
        await deferWrite(tx, INSERT, ['negative', -1]);
      }),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    expect(await notes()).toEqual([]);
    await outsideTransaction();
  });

  it('sends the writes on their own ahead of a statement that cannot carry them', async () => {
    let count: unknown;
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['a', 1]);
        count = await tx.query(`SELECT count(*)::int AS n FROM deferred_w.notes`);
      }),
    );
    expect(count).toEqual([{ n: 1 }]);
    expect(trips).toBe(4);
    // Refused there, the refusal is what that statement answers.
    await expect(
      source.transaction(async (tx) => {
        await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['negative', -1]);
        await tx.query(`SELECT 1`);
      }),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    expect(await notes()).toEqual([{ id: 'a', n: 1 }]);
    await outsideTransaction();
  });

  it('drops the writes a rollback to a savepoint would undo, unsent', async () => {
    let trips = 0;
    await source.transaction(async (tx) => {
      await deferWrite(tx, INSERT, ['kept', 1]);
      await rolledBack(tx, async (dry) => {
        await deferWrite(dry, INSERT, ['dry', 1]);
        expect(await dry.query(`SELECT id FROM deferred_w.notes WHERE n = $1`, [1])).toHaveLength(
          2,
        );
        // Not sent: a refusal it would meet is undone with it.
        await deferWrite(dry, INSERT, ['negative', -1]);
        trips = await roundTrips(() => deferWrite(dry, INSERT, ['dry too', 1]));
      });
      expect(await tx.query(`SELECT id FROM deferred_w.notes WHERE n >= $1`, [0])).toEqual([
        { id: 'kept' },
      ]);
    });
    expect(trips).toBe(0);
    expect(await notes()).toEqual([{ id: 'kept', n: 1 }]);
    // A TypeORM savepoint (a nested transaction) rolled back by a throw: the same.
    await source.transaction(async (tx) => {
      await tx.query(INSERT, ['outer', 2]);
      await expect(
        tx.transaction(async (inner) => {
          await deferWrite(inner, INSERT, ['inner', -1]);
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await deferWrite(tx, INSERT, ['after', 3]);
    });
    expect((await notes()).map((note) => note.id)).toEqual(['after', 'kept', 'outer']);
    await outsideTransaction();
  });

  it('drops writes a rolled-back transaction never sent', async () => {
    const trips = await roundTrips(() =>
      expect(
        source.transaction(async (tx) => {
          await deferWrite(tx, INSERT, ['undone', 1]);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind'),
    );
    expect(trips).toBe(0);
    await expect(
      source.transaction(async (tx) => {
        await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['undone', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await notes()).toEqual([]);
    await outsideTransaction();
  });

  it('refuses, where it is called, a value pg cannot send, and a write outside a transaction', async () => {
    const unbindable = {
      toPostgres: () => {
        throw new Error('cannot be sent');
      },
    };
    await expect(
      source.transaction(async (tx) => {
        await tx.query(XID, [1]);
        await deferWrite(tx, INSERT, ['a', unbindable]).catch(() => 'caught here');
        await deferWrite(tx, INSERT, ['b', 2]);
      }),
    ).resolves.toBeUndefined();
    expect(await notes()).toEqual([{ id: 'b', n: 2 }]);
    await expect(deferWrite(source.manager, INSERT, ['c', 3])).rejects.toBeInstanceOf(
      WriteOutsideTransactionError,
    );
  });

  it('does not pass writes still owed to the next user of a pooled connection', async () => {
    const runner = source.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await deferWrite(runner.manager, INSERT, ['abandoned', 1]);
    // Handed back without a statement, a COMMIT or a ROLLBACK.
    await runner.release();
    expect(
      await source.query(`SELECT count(*)::int AS n FROM deferred_w.notes WHERE n = $1`, [1]),
    ).toEqual([{ n: 0 }]);
    await outsideTransaction();
  });

  it('runs the write at once on a client that does not pipeline', async () => {
    const plain = await createDataSource({
      url: db.url,
      schema: 'deferred_w',
      entities: [],
      migrations: [],
      preparedStatements: false,
    }).initialize();
    try {
      await expect(
        plain.transaction(async (tx) => {
          await deferWrite(tx, INSERT, ['plain', -1]).catch((error: { code?: string }) => {
            throw new Error(`refused where called: ${error.code}`);
          });
        }),
      ).rejects.toThrow('refused where called: 23514');
      await plain.transaction((tx) => deferWrite(tx, INSERT, ['plain', 1]));
      expect(await notes()).toEqual([{ id: 'plain', n: 1 }]);
    } finally {
      await plain.destroy();
    }
  });
});
