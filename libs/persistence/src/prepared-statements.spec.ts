import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { sqlRows } from './sql-rows';

interface NoteRow {
  id: string;
  body: { tags: string[] };
  createdAt: Date;
  n: number;
}

describe('prepared statements and sqlRows', () => {
  let db: TestDatabase;
  let prepared: DataSource;
  let unnamed: DataSource;
  const open = (preparedStatements: boolean) =>
    createDataSource({
      url: db.url,
      schema: 'prep',
      entities: [],
      migrations: [],
      // One connection: what it prepared is what pg_prepared_statements shows.
      poolSize: 1,
      preparedStatements,
    }).initialize();
  const preparedOn = async (source: DataSource) =>
    (
      (await source.query(`SELECT statement FROM pg_prepared_statements`)) as Array<{
        statement: string;
      }>
    ).map((row) => row.statement);
  const READ = `SELECT id, body, created_at AS "createdAt", n FROM prep.notes WHERE id = $1`;

  beforeAll(async () => {
    db = await createTestDatabase('prepared_statements');
    prepared = await open(true);
    unnamed = await open(false);
    await prepared.query(`CREATE SCHEMA prep`);
    await prepared.query(
      `CREATE TABLE prep.notes (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL, n integer NOT NULL)`,
    );
    await prepared.query(
      `INSERT INTO prep.notes VALUES ('a', '{"tags":["x"]}', '2026-01-02T03:04:05Z', 7)`,
    );
  });
  afterAll(async () => {
    await prepared?.destroy();
    await unnamed?.destroy();
    await db?.drop();
  });

  it('prepares a statement with parameters once it repeats, with the same rows as unnamed', async () => {
    const first = await sqlRows<NoteRow>(prepared, READ, ['a']);
    const again = await sqlRows<NoteRow>(prepared, READ, ['a']);
    const third = await sqlRows<NoteRow>(prepared, READ, ['a']);
    const plain = await sqlRows<NoteRow>(unnamed, READ, ['a']);
    expect(plain).toEqual([
      { id: 'a', body: { tags: ['x'] }, createdAt: new Date('2026-01-02T03:04:05Z'), n: 7 },
    ]);
    for (const rows of [first, again, third]) expect(rows).toEqual(plain);
    expect(await preparedOn(prepared)).toContain(READ);
    expect(await preparedOn(unnamed)).toEqual([]);
  });

  it('leaves statements without parameters alone, several commands in one string too', async () => {
    const several = `SELECT 1; SELECT 2`;
    for (let i = 0; i < 3; i++) await prepared.query(several);
    expect(await preparedOn(prepared)).not.toContain(several);
  });

  it('reads what the caller’s transaction wrote inside it, and only committed rows outside', async () => {
    await prepared.transaction(async (tx) => {
      await tx.query(`INSERT INTO prep.notes VALUES ($1, '{"tags":[]}', now(), 1)`, ['b']);
      expect(await sqlRows(tx, READ, ['b'])).toHaveLength(1);
      await tx.query(`DELETE FROM prep.notes WHERE id = $1`, ['b']);
    });
    expect(await sqlRows(prepared, READ, ['b'])).toEqual([]);
  });

  it('prepares again a statement whose first preparation failed in an aborted transaction', async () => {
    const text = `SELECT n FROM prep.notes WHERE id = $1 AND n > $2`;
    await sqlRows(prepared, text, ['a', 0]);
    await expect(
      prepared.transaction(async (tx) => {
        await expect(tx.query(`SELECT 1/0 WHERE $1::int = 1`, [1])).rejects.toThrow();
        // Its second sighting: named now, and refused by the aborted transaction.
        await tx.query(text, ['a', 0]);
      }),
    ).rejects.toThrow(/aborted/);
    expect(await sqlRows(prepared, text, ['a', 0])).toEqual([{ n: 7 }]);
    expect(await sqlRows(prepared, text, ['a', 0])).toEqual([{ n: 7 }]);
  });
  it('answers a named statement’s failure as pg does, through the pool and in a transaction', async () => {
    const insert = `INSERT INTO prep.notes VALUES ($1, '{"tags":[]}', now(), $2)`;
    const duplicate = { code: '23505', constraint: 'notes_pkey' };
    // Named from the second sighting on: every one of these runs the prepared statement.
    for (let i = 0; i < 3; i++) {
      await expect(sqlRows(prepared, insert, ['a', i])).rejects.toMatchObject(duplicate);
    }
    await expect(
      prepared.transaction(async (tx) => {
        await tx.query(insert, ['c', 1]);
        await tx.query(insert, ['c', 2]);
      }),
    ).rejects.toMatchObject(duplicate);
    expect(await preparedOn(prepared)).toContain(insert);
    expect(await sqlRows(prepared, READ, ['c'])).toEqual([]);
  });

  it('asks the server to describe a prepared statement’s rows once per connection, and parses them the same every time', async () => {
    const text = `SELECT id, body, created_at AS "createdAt", n, NULL::text AS nothing FROM prep.notes WHERE id = $1 AND n >= $2`;
    const pool = (prepared.driver as unknown as { master: Pool }).master;
    // pg's wire connection: what asks the server to describe a statement's rows.
    const client = await pool.connect();
    const connection = Object.getPrototypeOf(
      (client as unknown as { connection: object }).connection,
    ) as { describe: () => void };
    client.release();
    const describe = jest.spyOn(connection, 'describe');
    try {
      const plain = await sqlRows(unnamed, text, ['a', 0]);
      describe.mockClear();
      const runs = [];
      for (let i = 0; i < 4; i++) runs.push(await sqlRows(prepared, text, ['a', 0]));
      // The first runs unnamed (pg describes it), the second prepares the statement on this
      // connection and describes it; the later ones run it without a Describe.
      expect(describe).toHaveBeenCalledTimes(2);
      for (const rows of runs) expect(rows).toEqual(plain);
      expect(plain).toEqual([
        {
          id: 'a',
          body: { tags: ['x'] },
          createdAt: new Date('2026-01-02T03:04:05Z'),
          n: 7,
          nothing: null,
        },
      ]);
      // No row: the fields are still the statement's, for a caller of pg that reads them.
      const none = await pool.query(text, ['none', 0]);
      expect(none.rows).toEqual([]);
      expect(none.fields.map((field: { name: string }) => field.name)).toEqual([
        'id',
        'body',
        'createdAt',
        'n',
        'nothing',
      ]);
      expect(describe).toHaveBeenCalledTimes(2);
      // Each row is an object of its own.
      const [one] = await sqlRows<NoteRow>(prepared, text, ['a', 0]);
      const [two] = await sqlRows<NoteRow>(prepared, text, ['a', 0]);
      one.n = 8;
      expect(two.n).toBe(7);
    } finally {
      describe.mockRestore();
    }
  });

  it('runs a statement again on the same connection after a value the client could not bind', async () => {
    const text = `SELECT $1::jsonb AS doc, n FROM prep.notes WHERE id = $2`;
    const unbindable = { count: BigInt(1) }; // JSON.stringify refuses a BigInt
    // Through TypeORM, whose connection goes back to the pool after an error: the one connection.
    await expect(prepared.query(text, [unbindable, 'a'])).rejects.toThrow(/BigInt/);
    // Its second sighting: parsed, then closed by pg when the value fails.
    await expect(prepared.query(text, [unbindable, 'a'])).rejects.toThrow(/BigInt/);
    expect(await prepared.query(text, [{ ok: true }, 'a'])).toEqual([{ doc: { ok: true }, n: 7 }]);
    expect(await prepared.query(text, [{ ok: 1 }, 'a'])).toEqual([{ doc: { ok: 1 }, n: 7 }]);
    // Prepared and described now: a failed bind, then the same statement again.
    await expect(prepared.query(text, [unbindable, 'a'])).rejects.toThrow(/BigInt/);
    expect(await prepared.query(text, [{ ok: 2 }, 'a'])).toEqual([{ doc: { ok: 2 }, n: 7 }]);
    expect(await prepared.query(text, [{ ok: 3 }, 'a'])).toEqual([{ doc: { ok: 3 }, n: 7 }]);
  });

  it('parses a described statement’s rows with the type parsers in force at each execution', async () => {
    const text = `SELECT n FROM prep.notes WHERE id = $1 AND n < $2`;
    const pool = (prepared.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    try {
      for (let i = 0; i < 3; i++)
        expect((await client.query(text, ['a', 100])).rows).toEqual([{ n: 7 }]);
      client.setTypeParser(23, (value: string) => `int:${value}`);
      expect((await client.query(text, ['a', 100])).rows).toEqual([{ n: 'int:7' }]);
    } finally {
      // With its own parser, this connection is not given back to the pool.
      client.release(true);
    }
  });
});
