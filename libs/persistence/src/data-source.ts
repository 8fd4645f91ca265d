import { DataSource, type DataSourceOptions } from 'typeorm';
import { PreparingClient } from './prepared-statements';

type MigrationClass = new () => unknown;

export interface DatabaseOptions {
  /** postgres:// URL of the server and database. */
  url: string;
  /** The owning service's schema; every table of the service lives in it. */
  schema: string;
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: MigrationClass[];
  /** Pool size per process. */
  poolSize?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * `false`: every statement unnamed (behind a pooler in transaction mode, which cannot keep
   * a connection's prepared statements). Default: repeated statements are prepared.
   */
  preparedStatements?: boolean;
  /**
   * The longest the pool waits for a new connection is this too, when shorter than its 10 s.
   * The statement deadline itself is `watchStatementDeadline`'s (query-deadline.ts), started
   * once the service has booted: migrations and start-up work may wait longer.
   */
  statementDeadlineMs?: number;
}

/** The longest a caller waits for a connection of the pool. */
const MAX_ACQUIRE_MS = 10_000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A TypeORM data source bound to one service schema. Never synchronizes: migrations only. */
export function createDataSource(options: DatabaseOptions): DataSource {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name "${options.schema}"`);
  }
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    applicationName: options.applicationName ?? `comanda-${options.schema}`,
    // Every acquire has a deadline: an exhausted pool or an unreachable server fails the
    // caller (a consumer then pauses) instead of queueing it forever; a shorter statement
    // deadline bounds it too, so a frozen server fails every request within that.
    // Repeated statements are prepared once per connection (prepared-statements.ts).
    extra: {
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: Math.min(
        MAX_ACQUIRE_MS,
        options.statementDeadlineMs || MAX_ACQUIRE_MS,
      ),
      ...(options.preparedStatements === false ? {} : { Client: PreparingClient }),
    },
  });
}

/**
 * Opens the data source, creates its schema (TypeORM's `schema` option does not) and runs
 * the committed migrations. Replicas starting together take turns on an advisory lock,
 * so each migration runs once.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  const dataSource = createDataSource(options);
  await dataSource.initialize();
  try {
    await migrate(dataSource, options.schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

async function migrate(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`comanda:migrate:${schema}`]);
    try {
      await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`comanda:migrate:${schema}`]);
    }
  } finally {
    await runner.release();
  }
}

/** The schema a data source (or a migration's query runner) is bound to. */
export function schemaOf(source: DataSource | { connection: DataSource }): string {
  const dataSource = source instanceof DataSource ? source : source.connection;
  const { schema } = dataSource.options as { schema?: string };
  if (!schema) throw new Error('this data source is not bound to a service schema');
  return schema;
}
