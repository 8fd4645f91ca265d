import type { TestDatabase } from '@comanda/testing';
import { QueryFailedError, type DataSource } from 'typeorm';
import { expectOutsideTransaction, oneConnection, roundTrips } from './test-support/pipelining';

/**
 * A transaction's BEGIN goes out with its first statement (prepared-statements.ts, ADR 0066):
 * what a caller sees is the same transaction, one round trip fewer.
 */
describe('a transaction’s BEGIN sent with its first statement', () => {
  let db: TestDatabase;
  let source: DataSource;
  const outsideTransaction = () => expectOutsideTransaction(source);
  const XID = `SELECT pg_current_xact_id()::text AS xid WHERE $1::int = 1`;
  const xid = async (run: (text: string, values?: unknown[]) => Promise<unknown>, text = XID) =>
    ((await run(text, text.includes('$1') ? [1] : undefined)) as Array<{ xid: string }>)[0].xid;

  beforeAll(async () => {
    ({ db, source } = await oneConnection(
      'deferred_begin',
      'deferred',
      `CREATE TABLE deferred.notes (id text PRIMARY KEY, n integer NOT NULL)`,
    ));
    // Named and parsed on the connection, as a running service's statements are.
    for (let i = 0; i < 3; i++) await source.transaction((tx) => tx.query(XID, [1]));
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('runs the first statement and the next in one transaction, in a round trip fewer', async () => {
    const xids: string[] = [];
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        xids.push(await xid((text, values) => tx.query(text, values)));
        xids.push(await xid((text, values) => tx.query(text, values)));
      }),
    );
    // Both statements and the COMMIT: no round trip of its own for BEGIN.
    expect(trips).toBe(3);
    expect(xids[0]).toBe(xids[1]);
    // Another transaction is another transaction.
    const next = await source.transaction((tx) => xid((text, values) => tx.query(text, values)));
    expect(next).not.toBe(xids[0]);
    await outsideTransaction();
  });

  it('carries BEGIN with a statement seen for the first time (unnamed) too', async () => {
    const text = `SELECT pg_current_xact_id()::text AS xid, 'first sighting' AS why WHERE $1::int = 1`;
    const xids: string[] = [];
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        xids.push(await xid((sql, values) => tx.query(sql, values), text));
        xids.push(await xid((sql, values) => tx.query(sql, values)));
      }),
    );
    expect(trips).toBe(3);
    expect(xids[0]).toBe(xids[1]);
  });

  it('sends BEGIN on its own before a first statement without parameters, in the same transaction', async () => {
    const xids: string[] = [];
    const trips = await roundTrips(() =>
      source.transaction(async (tx) => {
        xids.push(await xid((sql) => tx.query(sql), `SELECT pg_current_xact_id()::text AS xid`));
        xids.push(await xid((sql, values) => tx.query(sql, values)));
      }),
    );
    expect(trips).toBe(4);
    expect(xids[0]).toBe(xids[1]);
    await outsideTransaction();
  });

  it('sends nothing for a transaction that ran no statement, and leaves no transaction open', async () => {
    const trips = await roundTrips(() => source.transaction(async () => 'nothing to do'));
    expect(trips).toBe(0);
    await outsideTransaction();
    await expect(source.transaction(async () => Promise.reject(new Error('no')))).rejects.toThrow(
      'no',
    );
    await outsideTransaction();
  });

  it('commits the writes of the first statement, and rolls them back with the transaction', async () => {
    const insert = `INSERT INTO deferred.notes VALUES ($1, $2)`;
    await source.transaction((tx) => tx.query(insert, ['kept', 1]));
    await expect(
      source.transaction(async (tx) => {
        await tx.query(insert, ['undone', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // Named by now: carried with BEGIN, and undone with the rest.
    await expect(
      source.transaction(async (tx) => {
        await tx.query(insert, ['undone too', 1]);
        await tx.query(insert, ['kept', 2]);
      }),
    ).rejects.toMatchObject({ driverError: { code: '23505' } });
    expect(await source.query(`SELECT id, n FROM deferred.notes ORDER BY id`)).toEqual([
      { id: 'kept', n: 1 },
    ]);
    await outsideTransaction();
  });

  it('fails the transaction when its first statement fails, and the connection serves on', async () => {
    const divide = `SELECT 1 / $1::int AS q`;
    await source.query(divide, [1]);
    await source.query(divide, [1]);
    for (let i = 0; i < 2; i++) {
      await expect(source.transaction((tx) => tx.query(divide, [0]))).rejects.toBeInstanceOf(
        QueryFailedError,
      );
      await outsideTransaction();
    }
    expect(await source.transaction((tx) => tx.query(divide, [2]))).toEqual([{ q: 0 }]);
  });

  it('fails the transaction when pg cannot bind the first statement’s value, and the statement serves on', async () => {
    const unbindable = {
      toPostgres: () => {
        throw new Error('cannot be sent');
      },
    };
    await expect(
      source.transaction((tx) => xid((text) => tx.query(text, [unbindable]))),
    ).rejects.toThrow('cannot be sent');
    await outsideTransaction();
    expect(await source.transaction((tx) => xid((text, values) => tx.query(text, values)))).toEqual(
      expect.any(String),
    );
  });

  it('does not pass a BEGIN still owed to the next user of a pooled connection', async () => {
    const runner = source.createQueryRunner();
    await runner.connect();
    // Begun and handed back without a statement, a COMMIT or a ROLLBACK.
    await runner.query('START TRANSACTION');
    await runner.release();
    expect(await source.query(`SELECT n FROM deferred.notes WHERE id = $1`, ['kept'])).toEqual([
      { n: 1 },
    ]);
    await outsideTransaction();
  });
});
