/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), an
 * administrator's or a crash's shutdown, a server still starting, no connection slot left.
 */
const UNAVAILABLE_STATES = /^(08[0-9A-Z]{3}|57P01|57P02|57P03|53300|53400)$/;

/** Socket errors of a connection to the server that could not be opened or broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg and its pool say, with no code, of a connection lost or not obtained. */
const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection is not queryable/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  /query read timeout/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

function unavailableItself(error: object): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) {
    return true;
  }
  return typeof message === 'string' && CONNECTION_MESSAGES.some((known) => known.test(message));
}

/**
 * The database cannot serve now (unreachable, restarting, out of connection slots): a
 * condition that passes, not a fault of the statement or of what the caller asked. Wrapped
 * causes count: TypeORM's `QueryFailedError` carries pg's error as `driverError`.
 */
export function databaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (candidate: unknown): boolean => {
    if (!candidate || typeof candidate !== 'object' || seen.has(candidate)) return false;
    seen.add(candidate);
    if (unavailableItself(candidate)) return true;
    const record = candidate as { cause?: unknown; driverError?: unknown; errors?: unknown };
    return (
      visit(record.driverError) ||
      visit(record.cause) ||
      (Array.isArray(record.errors) && record.errors.some(visit))
    );
  };
  return visit(error);
}

/** When this process last answered a request 503 because its database could not serve it. */
let lastRefusalAt: number | undefined;

/**
 * Notes that a request was refused because the database could not serve it: whoever called
 * was told to come back later. The timer poller gives deadlines for reports from outside a
 * grace after such a refusal (docs/adr/0060), even when its own rounds never met the outage.
 */
export function noteRefusedForDatabase(at: number = Date.now()): void {
  lastRefusalAt = at;
}

/** The last time (ms since the epoch) a request was refused for the database, if ever. */
export function lastRefusedForDatabaseAt(): number | undefined {
  return lastRefusalAt;
}
