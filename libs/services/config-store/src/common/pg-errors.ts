import { QueryFailedError } from 'typeorm';

/** The name of the unique constraint a failed insert or update hit, if that is what failed. */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' ? driverError.constraint : undefined;
}
