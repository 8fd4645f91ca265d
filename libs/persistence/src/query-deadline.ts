import type { Client, Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { poolOf } from './sql-rows';

/**
 * A statement the database has not answered within the deadline: its connection was closed.
 * `ETIMEDOUT` makes it a database that cannot serve now (`databaseUnavailable`): a request
 * answers 503, a consumer pauses.
 */
export class DatabaseStalledError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(deadlineMs: number) {
    super(
      `The database did not answer a statement within ${deadlineMs} ms; its connection was closed.`,
    );
    this.name = 'DatabaseStalledError';
  }
}

// The parts of pg's Client and Pool the watch reads (pg and pg-pool are pinned exactly).
interface WatchedClient {
  _activeQuery: object | null;
  connection: { stream: { destroy(error?: Error): void } };
}
interface PoolInternals {
  _clients: Client[];
}

/**
 * The longest between two looks at the pool: a stalled statement fails within the deadline
 * and two of these.
 */
const MAX_SWEEP_MS = 1_000;

/**
 * Closes the connection of any statement of `dataSource`'s pool that has been waiting for the
 * database longer than `deadlineMs`. A server that stalls without closing its connections (a
 * frozen host, a network that drops packets) would otherwise keep a request until the
 * gateway's upstream timeout, and let its write commit after the gateway had answered.
 * Closing the connection fails the statement and everything queued behind it on that
 * connection (a ROLLBACK included) at once, takes the connection out of the pool, and makes
 * the server roll back the open transaction when it reads the closed socket. A COMMIT, or a
 * statement sent outside a transaction, caught by the deadline is "not known", as a COMMIT
 * whose answer is lost (ADR 0054, 0057).
 *
 * No cost per statement: the pool is swept every `min(deadline / 4, 1 s)`, and a statement
 * seen active on the same connection at two sweeps `deadlineMs` apart is the stalled one (so
 * it has waited at least the deadline, and is failed within the deadline and two sweeps).
 * Returns a function that stops the watch; the watch also stops when the data source closes.
 */
export function watchStatementDeadline(dataSource: DataSource, deadlineMs: number): () => void {
  const pool = poolOf(dataSource) as Pool & PoolInternals;
  const seen = new WeakMap<object, { query: object; since: number }>();
  const sweep = (): void => {
    // A pool without its list (another pg-pool) is not watched rather than crashing the
    // process from a timer; database-unavailable.spec.ts fails then.
    if (!dataSource.isInitialized || !Array.isArray(pool._clients)) return stop();
    const now = Date.now();
    for (const client of pool._clients as unknown as WatchedClient[]) {
      const query = client._activeQuery;
      if (!query) {
        seen.delete(client);
        continue;
      }
      const known = seen.get(client);
      if (known?.query !== query) {
        seen.set(client, { query, since: now });
      } else if (now - known.since >= deadlineMs) {
        seen.delete(client);
        closeAsStalled(client, deadlineMs);
      }
    }
  };
  const timer = setInterval(sweep, Math.max(1, Math.min(Math.floor(deadlineMs / 4), MAX_SWEEP_MS)));
  timer.unref();
  function stop(): void {
    clearInterval(timer);
  }
  return stop;
}

/** Closes the connection of a statement not answered in time: everything on it fails at once. */
function closeAsStalled(client: WatchedClient, deadlineMs: number): void {
  client.connection.stream.destroy(new DatabaseStalledError(deadlineMs));
}

/**
 * `statement` on a connection the pool's sweep does not watch (one of its own, as the outbox
 * relay's listener): its connection is closed, as the sweep would, when the server has not
 * answered within `deadlineMs`.
 */
export async function withinStatementDeadline<T>(
  client: Client,
  deadlineMs: number,
  statement: () => Promise<T>,
): Promise<T> {
  const timer = setTimeout(
    () => closeAsStalled(client as unknown as WatchedClient, deadlineMs),
    deadlineMs,
  );
  try {
    return await statement();
  } finally {
    clearTimeout(timer);
  }
}
