/** Something that runs SQL on the test's database: a DataSource, a query runner, a harness. */
interface Queryable {
  query(sql: string): Promise<unknown>;
}

/**
 * How many sessions of the current database wait on a lock right now (`pg_stat_activity`):
 * for tests that hold a lock and must know another transaction has reached it.
 */
export async function lockWaiters(db: Queryable): Promise<number> {
  const rows = (await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  )) as Array<{ n: number }>;
  return rows[0]?.n ?? 0;
}
