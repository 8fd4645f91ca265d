import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { Connection } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';

// pg's wire connection: each round trip ends with a Sync (extended protocol) or is one simple
// Query message.
const wire = Connection.prototype as unknown as { sync(): void; query(text: string): void };

/** The round trips to the server `work` takes. */
export async function roundTrips(work: () => Promise<unknown>): Promise<number> {
  const sync = jest.spyOn(wire, 'sync');
  const simple = jest.spyOn(wire, 'query');
  try {
    await work();
    return sync.mock.calls.length + simple.mock.calls.length;
  } finally {
    sync.mockRestore();
    simple.mockRestore();
  }
}

/**
 * A database of its own with a data source of one connection, so that every transaction and
 * probe runs on it; `schema` is created, and `setup` run in it.
 */
export async function oneConnection(
  name: string,
  schema: string,
  setup: string,
): Promise<{ db: TestDatabase; source: DataSource }> {
  const db = await createTestDatabase(name);
  const source = await createDataSource({
    url: db.url,
    schema,
    entities: [],
    migrations: [],
    poolSize: 1,
  }).initialize();
  await source.query(`CREATE SCHEMA ${schema}`);
  await source.query(setup);
  return { db, source };
}

/** Fails outside a transaction block: `source`'s one connection is not left in one. */
export function expectOutsideTransaction(source: DataSource): Promise<void> {
  return expect(source.query('SAVEPOINT probe')).rejects.toThrow(/transaction block/);
}
