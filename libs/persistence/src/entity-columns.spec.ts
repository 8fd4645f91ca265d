import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn, type DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { entityColumns } from './entity-columns';
import { sqlRows } from './sql-rows';

@Entity({ name: 'shelves' })
class ShelfEntity {
  @PrimaryColumn({ type: 'varchar' })
  id!: string;

  @Column({ name: 'max_books', type: 'integer' })
  maxBooks!: number;
}

@Entity({ name: 'books' })
class BookEntity {
  @PrimaryColumn({ type: 'varchar' })
  id!: string;

  @Column({ name: 'shelf_id', type: 'varchar' })
  shelfId!: string;

  @Column({ type: 'json' })
  tags!: string[];

  @Column({ name: 'lent_at', type: 'timestamptz', nullable: true })
  lentAt!: Date | null;

  @Column({ type: 'boolean' })
  signed!: boolean;
}

@Entity({ name: 'loans' })
class LoanEntity {
  @PrimaryGeneratedColumn()
  id!: number;
}

describe('entityColumns', () => {
  let db: TestDatabase;
  let source: DataSource;
  const READ = (book: string, shelf: string) =>
    `SELECT ${book}, ${shelf} FROM ${entityColumns(source, BookEntity, 'b').table} b
     LEFT JOIN ${entityColumns(source, ShelfEntity, 's').table} s ON s.id = b.shelf_id
     WHERE b.id = $1`;

  beforeAll(async () => {
    db = await createTestDatabase('entity_columns');
    source = await createDataSource({
      url: db.url,
      schema: 'library',
      entities: [ShelfEntity, BookEntity, LoanEntity],
      migrations: [],
    }).initialize();
    await source.query(`CREATE SCHEMA library`);
    await source.query(`CREATE TABLE library.shelves (id varchar PRIMARY KEY, max_books integer)`);
    await source.query(
      `CREATE TABLE library.books (id varchar PRIMARY KEY, shelf_id varchar, tags json,
         lent_at timestamptz, signed boolean DEFAULT true)`,
    );
    await source.query(`INSERT INTO library.shelves VALUES ('top', 12)`);
    await source.query(
      `INSERT INTO library.books VALUES ('dune', 'top', '["sf"]', '2026-01-02T03:04:05Z', true),
         ('emma', 'gone', '[]', NULL, false)`,
    );
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('reads two tables in one statement and hydrates each as TypeORM does', async () => {
    const b = entityColumns(source, BookEntity, 'b');
    const s = entityColumns(source, ShelfEntity, 's');
    const [row] = await sqlRows<Record<string, unknown>>(source, READ(b.select, s.select), [
      'dune',
    ]);
    const book = b.hydrate(row);
    expect(book).toBeInstanceOf(BookEntity);
    expect(book).toEqual(await source.manager.findOneBy(BookEntity, { id: 'dune' }));
    expect(book).toMatchObject({
      id: 'dune',
      shelfId: 'top',
      tags: ['sf'],
      lentAt: new Date('2026-01-02T03:04:05Z'),
      signed: true,
    });
    expect(s.hydrate(row)).toEqual(Object.assign(new ShelfEntity(), { id: 'top', maxBooks: 12 }));
  });

  it('gives null for the side of an outer join that found no row', async () => {
    const b = entityColumns(source, BookEntity, 'b');
    const s = entityColumns(source, ShelfEntity, 's');
    const [row] = await sqlRows<Record<string, unknown>>(source, READ(b.select, s.select), [
      'emma',
    ]);
    expect(b.hydrate(row)).toMatchObject({ id: 'emma', lentAt: null, signed: false });
    expect(s.hydrate(row)).toBeNull();
  });

  it('names the schema of the data source and refuses an alias that is not a plain name', () => {
    expect(entityColumns(source, BookEntity, 'b').table).toBe('"library"."books"');
    expect(() => entityColumns(source, BookEntity, 'b; DROP')).toThrow(/plain alias/);
  });

  it('inserts an entity as TypeORM persists it, DEFAULT where a property is undefined', async () => {
    const books = entityColumns(source, BookEntity, 'b');
    const lent = Object.assign(new BookEntity(), {
      id: 'odyssey',
      shelfId: 'top',
      tags: ['epic', 'greek'],
      lentAt: new Date('2026-03-04T05:06:07Z'),
      signed: false,
    });
    const unsigned = Object.assign(new BookEntity(), {
      id: 'iliad',
      shelfId: 'top',
      tags: [],
      lentAt: null,
    });
    for (const book of [lent, unsigned]) {
      const { text, values } = books.insert(book);
      await sqlRows(source, text, values);
    }

    expect(await source.manager.findOneBy(BookEntity, { id: 'odyssey' })).toEqual(lent);
    expect(await source.manager.findOneBy(BookEntity, { id: 'iliad' })).toEqual({
      ...unsigned,
      signed: true,
    });
  });

  it('updates an entity’s row by its key as TypeORM persists it, leaving undefined properties as they are', async () => {
    const books = entityColumns(source, BookEntity, 'b');
    const before = Object.assign(new BookEntity(), {
      id: 'aeneid',
      shelfId: 'top',
      tags: ['epic'],
      lentAt: null,
      signed: true,
    });
    const other = Object.assign(new BookEntity(), { ...before, id: 'georgics' });
    for (const book of [before, other])
      await sqlRows(source, books.insert(book).text, books.insert(book).values);

    const after = Object.assign(new BookEntity(), {
      ...before,
      tags: ['epic', 'latin'],
      lentAt: new Date('2026-05-06T07:08:09Z'),
    });
    const { text, values } = books.update({ ...after, shelfId: undefined } as never);
    await sqlRows(source, text, values);

    expect(await source.manager.findOneBy(BookEntity, { id: 'aeneid' })).toEqual(after);
    expect(await source.manager.findOneBy(BookEntity, { id: 'georgics' })).toEqual(other);
    expect(() => books.update({ ...after, id: undefined } as never)).toThrow(
      /BookEntity.id is not set/,
    );
  });

  it('refuses an entity whose columns TypeORM fills in itself', () => {
    expect(() => entityColumns(source, LoanEntity, 'l')).toThrow(
      /LoanEntity.id is not a plain column/,
    );
  });
});
