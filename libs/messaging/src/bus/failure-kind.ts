import { databaseUnavailable } from '@comanda/persistence';
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

// Beside a database that cannot be reached (@comanda/persistence), the conflicts PostgreSQL
// asks the client to retry: serialization failure, deadlock, a lock not available, a
// statement cancelled by its timeout.
const RETRY_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014']);

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
  const { code } = error as { code?: unknown };
  return (typeof code === 'string' && RETRY_SQLSTATES.has(code)) || databaseUnavailable(error);
}
