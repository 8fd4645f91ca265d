import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { openDatabase } from './data-source';
import { rolledBack, transactional, UnitOfWork, type Tx } from './unit-of-work';

class Notes {
  async add(tx: Tx, id: string): Promise<void> {
    await tx.query(`INSERT INTO uow.notes (id) VALUES ($1)`, [id]);
  }
  async addTwice(tx: Tx, id: string): Promise<void> {
    await this.add(tx, id);
    await this.add(tx, id);
  }
}

describe('UnitOfWork', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let unitOfWork: UnitOfWork;
  const ids = async () =>
    ((await dataSource.query(`SELECT id FROM uow.notes ORDER BY id`)) as Array<{ id: string }>).map(
      (row) => row.id,
    );

  beforeAll(async () => {
    db = await createTestDatabase('unit_of_work');
    dataSource = await openDatabase({ url: db.url, schema: 'uow', entities: [], migrations: [] });
    await dataSource.query(`CREATE TABLE uow.notes (id text PRIMARY KEY)`);
    unitOfWork = new UnitOfWork(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });
  beforeEach(() => dataSource.query(`DELETE FROM uow.notes`));

  it('commits every write of the work together, or none when it throws', async () => {
    const notes = new Notes();
    await unitOfWork.run((tx) => notes.add(tx, 'a'));
    await expect(unitOfWork.run((tx) => notes.addTwice(tx, 'b'))).rejects.toThrow();
    expect(await ids()).toEqual(['a']);
  });

  it('rolls a dry run back and keeps the caller’s transaction usable, even after a failure inside it', async () => {
    const notes = new Notes();
    await unitOfWork.run(async (tx) => {
      await notes.add(tx, 'kept');
      expect(await rolledBack(tx, async (inner) => (await notes.add(inner, 'dry'), 'built'))).toBe(
        'built',
      );
      await expect(rolledBack(tx, (inner) => notes.addTwice(inner, 'failing'))).rejects.toThrow();
      await notes.add(tx, 'after');
    });
    expect(await ids()).toEqual(['after', 'kept']);
  });

  it('transactional() runs each named use case in a transaction of its own', async () => {
    const notes = transactional(new Notes(), unitOfWork, ['add', 'addTwice']);
    await notes.add('x');
    await expect(notes.addTwice('y')).rejects.toThrow();
    expect(await ids()).toEqual(['x']);
  });
});
