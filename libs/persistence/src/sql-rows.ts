import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { deferOn } from './prepared-statements';
import type { Tx } from './unit-of-work';

const pools = new WeakMap<DataSource, Pool>();

export function poolOf(dataSource: DataSource): Pool {
  let pool = pools.get(dataSource);
  if (!pool) {
    // TypeORM's PostgresDriver keeps its pg Pool as `master`.
    pool = (dataSource.driver as unknown as { master?: Pool }).master;
    if (!pool) throw new Error('the data source is not initialised');
    pools.set(dataSource, pool);
  }
  return pool;
}

/**
 * The rows of one SQL statement with parameters: in the caller's transaction (`Tx`), or
 * outside any, straight on the data source's pool. For hot reads: no query runner, no
 * query builder and no entity hydration per request, and the statement is prepared once
 * per connection (prepared-statements.ts). Name the columns as the row type names them
 * (`config_id AS "configId"`); nothing caches rows, so a read sees the latest commit.
 */
export function sqlRows<Row>(
  source: DataSource | Tx,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  // Not `async`: while the request context's AsyncLocalStorage is in use, every `async`
  // frame and `await` costs promises of their own, each through its hook (issue 10).
  try {
    if (source instanceof DataSource) {
      return poolOf(source)
        .query(text, values as unknown[])
        .then((result) => result.rows as Row[]);
    }
    return source.query(text, values as unknown[]) as Promise<Row[]>;
  } catch (error) {
    // A data source not initialised fails the promise, as from an `async` function.
    return Promise.reject(error as Error);
  }
}

/**
 * A write in `tx` whose answer the transaction does not need (an outbox row, a timer, a row
 * under a fresh id): it goes out with the transaction's next statement, or with its COMMIT,
 * in the same round trip (ADR 0067). The server runs it in its place, before that statement.
 * Resolves at once; a refusal fails that next statement or the COMMIT, and so the
 * transaction. A caller that tells one refusal from another (a key taken answers 409) runs its
 * statement itself, with `sqlRows`. On a client that cannot defer it, it runs now.
 */
export function deferWrite(tx: Tx, text: string, values: readonly unknown[]): Promise<void> {
  try {
    const runner = tx.queryRunner;
    if (!runner?.isTransactionActive) throw new WriteOutsideTransactionError(text);
    const client = (runner as unknown as { databaseConnection?: unknown }).databaseConnection;
    if (deferOn(client, text, values)) return Promise.resolve();
    return runner.query(text, values as unknown[]).then(() => undefined);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** A deferred write must commit with a transaction: outside one, nothing would send it. */
export class WriteOutsideTransactionError extends Error {
  constructor(text: string) {
    super(`a deferred write needs an open transaction: ${text.slice(0, 80)}`);
    this.name = 'WriteOutsideTransactionError';
  }
}
