import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { openDatabase } from './data-source';

class CreateWidgets1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    const schema = (runner.connection.options as { schema: string }).schema;
    await runner.query(`CREATE TABLE "${schema}"."widgets" (id text PRIMARY KEY)`);
  }
  async down(runner: QueryRunner): Promise<void> {
    const schema = (runner.connection.options as { schema: string }).schema;
    await runner.query(`DROP TABLE "${schema}"."widgets"`);
  }
}

describe('openDatabase', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('persistence');
  });
  afterAll(() => db.drop());

  it('creates the service schema and runs each migration once, even with replicas racing', async () => {
    const options = {
      url: db.url,
      schema: 'widgets',
      entities: [],
      migrations: [CreateWidgets1700000000000],
    };
    const [a, b] = await Promise.all([openDatabase(options), openDatabase(options)]);
    try {
      const tables = await a.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'widgets' ORDER BY 1`,
      );
      expect(tables.map((row: { table_name: string }) => row.table_name)).toEqual([
        'migrations',
        'widgets',
      ]);
      const applied = await b.query(`SELECT name FROM "widgets"."migrations"`);
      expect(applied).toEqual([{ name: 'CreateWidgets1700000000000' }]);
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(
      openDatabase({ url: db.url, schema: 'bad"; drop', entities: [], migrations: [] }),
    ).rejects.toThrow('invalid schema name');
  });
});
