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

/**
 * Database errors that a request caused, as the problem that request deserves, for every
 * service at once: two concurrent creates of one id (unique violation) are a 409, not a 500;
 * a value too large for its column or index is a 400. Undefined for every other error.
 */
export function problemFromDatabaseError(error: unknown): ProblemError | undefined {
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
