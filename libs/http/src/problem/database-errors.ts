import { databaseUnavailable, noteRefusedForDatabase } from '@comanda/persistence';
import { ProblemError } from './problem.error';

interface PostgresErrorFields {
  code?: unknown;
  driverError?: { code?: unknown };
}

/** The SQLSTATE of a PostgreSQL error (pg's own or TypeORM's QueryFailedError around it). */
function sqlState(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const fields = error as Error & PostgresErrorFields;
  const code = fields.driverError?.code ?? fields.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Seconds a client is asked to wait before it tries again while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Database errors that a request caused, as the problem that request deserves, for every
 * service at once: two concurrent creates of one id (unique violation) are a 409, not a 500;
 * a value too large for its column or index is a 400; a database that cannot be reached is a
 * 503 with Retry-After. Undefined for every other error.
 */
export function problemFromDatabaseError(error: unknown): ProblemError | undefined {
  if (databaseUnavailable(error)) {
    // Deadlines waiting for this caller's report get a grace for it (docs/adr/0060).
    noteRefusedForDatabase();
    return new ProblemError({
      status: 503,
      code: 'service.unavailable',
      title: 'Service unavailable',
      detail: 'A system the service depends on cannot be reached right now. Try again later.',
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  }
  switch (sqlState(error)) {
    case '23505':
      return new ProblemError({
        status: 409,
        code: 'resource.conflict',
        title: 'Conflict',
        detail: 'A resource with the same identity already exists (or was created concurrently).',
      });
    case '22001':
    case '54000':
      return new ProblemError({
        status: 400,
        code: 'request.value_too_long',
        title: 'Value too long',
        detail: 'A value in the request is longer than the field accepts.',
      });
    default:
      return undefined;
  }
}
