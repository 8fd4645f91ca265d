import { DataSource, type EntityMetadata, type ObjectType } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { Tx } from './unit-of-work';

/**
 * An entity's table and columns for a hand-written statement that reads several tables at
 * once (a join TypeORM's find options cannot express, or one round trip instead of three):
 * the select list is built once from the entity's metadata, so a column added to the
 * entity is read too, and each row is hydrated as TypeORM hydrates it. Plain columns only.
 */
export interface EntityColumns<E> {
  /** The schema-qualified, quoted table name. */
  readonly table: string;
  /** `alias.column AS "alias.property", …` for every column of the entity. */
  readonly select: string;
  /** The entity of a row, or null when the row has none (an outer join that found nothing). */
  hydrate(row: Record<string, unknown>): E | null;
  /**
   * One INSERT of `entity` without a query builder: each column's value as TypeORM would
   * persist it, DEFAULT for a property left undefined. For entities with no generated,
   * version or create/update-date columns (refused when built).
   */
  insert(entity: E): { text: string; values: unknown[] };
  /**
   * One UPDATE of `entity`'s row, found by its primary key, to the entity's values: each
   * column as TypeORM would persist it, a property left undefined left as it is. No read
   * first, as TypeORM's `save` makes to find what changed.
   */
  update(entity: E): { text: string; values: unknown[] };
}

const built = new WeakMap<EntityMetadata, Map<string, EntityColumns<unknown>>>();

/** The columns of `target` under `alias` (a plain SQL identifier), built once per alias. */
export function entityColumns<E>(
  source: DataSource | Tx,
  target: ObjectType<E>,
  alias: string,
): EntityColumns<E> {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`"${alias}" is not a plain alias`);
  const dataSource = source instanceof DataSource ? source : source.connection;
  const metadata = dataSource.getMetadata(target);
  let byAlias = built.get(metadata);
  if (!byAlias) {
    byAlias = new Map();
    built.set(metadata, byAlias);
  }
  let columns = byAlias.get(alias) as EntityColumns<E> | undefined;
  if (!columns) {
    columns = build<E>(dataSource, metadata, alias);
    byAlias.set(alias, columns as EntityColumns<unknown>);
  }
  return columns;
}

function build<E>(
  dataSource: DataSource,
  metadata: EntityMetadata,
  alias: string,
): EntityColumns<E> {
  const unsupported = metadata.columns.find(
    (column) =>
      column.embeddedMetadata ||
      column.relationMetadata ||
      column.isGenerated ||
      column.isVersion ||
      column.isCreateDate ||
      column.isUpdateDate ||
      column.isDeleteDate,
  );
  if (unsupported) {
    throw new Error(
      `${metadata.name}.${unsupported.propertyName} is not a plain column: use TypeORM for this entity`,
    );
  }
  const driver = dataSource.driver;
  const quote = (name: string) => driver.escape(name);
  const columns = metadata.columns.map((column) => ({
    column,
    key: `${alias}.${column.propertyName}`,
  }));
  const primary = columns.filter(({ column }) => column.isPrimary).map(({ key }) => key);
  const table = metadata.schema
    ? `${quote(metadata.schema)}.${quote(metadata.tableName)}`
    : quote(metadata.tableName);
  const names = columns.map(({ column }) => quote(column.databaseName)).join(', ');
  return {
    table,
    select: columns
      .map(({ column, key }) => `${alias}.${quote(column.databaseName)} AS ${quote(key)}`)
      .join(', '),
    insert(entity) {
      const values: unknown[] = [];
      const placeholders = columns.map(({ column }) => {
        const value: unknown = (entity as Record<string, unknown>)[column.propertyName];
        if (value === undefined) return 'DEFAULT';
        values.push(driver.preparePersistentValue(value, column));
        return `$${values.length}`;
      });
      return {
        text: `INSERT INTO ${table} (${names}) VALUES (${placeholders.join(', ')})`,
        values,
      };
    },
    update(entity) {
      const values: unknown[] = [];
      const valueOf = (column: ColumnMetadata): string | undefined => {
        const value: unknown = (entity as Record<string, unknown>)[column.propertyName];
        if (value === undefined) return undefined;
        values.push(driver.preparePersistentValue(value, column));
        return `$${values.length}`;
      };
      const assignments = columns
        .filter(({ column }) => !column.isPrimary)
        .flatMap(({ column }) => {
          const placeholder = valueOf(column);
          return placeholder ? [`${quote(column.databaseName)} = ${placeholder}`] : [];
        });
      const keys = columns
        .filter(({ column }) => column.isPrimary)
        .map(({ column }) => {
          const placeholder = valueOf(column);
          if (!placeholder) throw new Error(`${metadata.name}.${column.propertyName} is not set`);
          return `${quote(column.databaseName)} = ${placeholder}`;
        });
      return {
        text: `UPDATE ${table} SET ${assignments.join(', ')} WHERE ${keys.join(' AND ')}`,
        values,
      };
    },
    hydrate(row) {
      if (primary.every((key) => row[key] === null || row[key] === undefined)) return null;
      const entity = metadata.create() as Record<string, unknown>;
      for (const { column, key } of columns) {
        entity[column.propertyName] = driver.prepareHydratedValue(row[key], column);
      }
      return entity as E;
    },
  };
}
