import { MessagingError } from './messaging.errors';

/**
 * A handler's failure that no retry can cure (invalid input, an entity that does not exist):
 * the message is dead-lettered at once instead of being retried.
 */
export class NonRetryableError extends MessagingError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('messaging.non_retryable', message, options);
  }
}

/**
 * Thrown (or wrapped) when what a handler depends on is down rather than the handler wrong:
 * the consumer pauses and the message is handed back without counting an attempt.
 */
export class InfrastructureUnavailableError extends MessagingError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('messaging.infrastructure_unavailable', message, options);
  }
}

/** How a failed delivery is treated: paused and requeued, retried, or dead-lettered now. */
export type FailureKind = 'infrastructure' | 'handler' | 'non-retryable';

// SQLSTATE classes and codes that say "the database is not there (or not now)", not "your
// statement is wrong": connection exceptions, shutdowns, too many connections, and the
// conflicts PostgreSQL asks the client to retry (serialization failure, deadlock).
const INFRA_SQLSTATE_PREFIXES = ['08'];
const INFRA_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57014', // query_canceled (statement timeout)
]);

const INFRA_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// pg and pg-pool report a lost or unobtainable connection with these messages and no code.
const INFRA_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection is not queryable/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  /query read timeout/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/**
 * Sorts a handler's error: the infrastructure's (nothing the message did; pause and try the
 * same message again once the database answers), a `NonRetryableError` (dead-letter now),
 * or the handler's own (retry with back-off, then dead-letter). Wrapped causes count:
 * TypeORM's `QueryFailedError` carries pg's error as `driverError`.
 */
export function classifyFailure(error: unknown): FailureKind {
  const seen = new Set<unknown>();
  let kind: FailureKind = 'handler';
  const visit = (candidate: unknown): void => {
    if (!candidate || typeof candidate !== 'object' || seen.has(candidate)) return;
    seen.add(candidate);
    if (candidate instanceof NonRetryableError) {
      kind = 'non-retryable';
      return;
    }
    if (kind === 'handler' && isInfrastructureError(candidate)) kind = 'infrastructure';
    const record = candidate as { cause?: unknown; driverError?: unknown; errors?: unknown };
    visit(record.driverError);
    visit(record.cause);
    if (Array.isArray(record.errors)) record.errors.forEach(visit);
  };
  visit(error);
  return kind;
}

function isInfrastructureError(error: object): boolean {
  if (error instanceof InfrastructureUnavailableError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (INFRA_ERRNO.has(code) || INFRA_SQLSTATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && INFRA_SQLSTATE_PREFIXES.some((p) => code.startsWith(p)))
      return true;
  }
  return typeof message === 'string' && INFRA_MESSAGES.some((pattern) => pattern.test(message));
}
