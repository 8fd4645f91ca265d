import { ProblemError, type ProblemFieldError } from '@comanda/http';

export class ConfigNotFoundError extends ProblemError {
  constructor(entity: string) {
    super({
      status: 404,
      code: 'config.not_found',
      title: 'Config not found',
      detail: `The tenant has no config under entity "${entity}".`,
    });
  }
}

export class ConfigVersionNotFoundError extends ProblemError {
  constructor(entity: string, version: number) {
    super({
      status: 404,
      code: 'config.version_not_found',
      title: 'Config version not found',
      detail: `The config under entity "${entity}" has no version ${version}.`,
    });
  }
}

export class ConfigAlreadyExistsError extends ProblemError {
  constructor(entity: string) {
    super({
      status: 409,
      code: 'config.already_exists',
      title: 'Config already exists',
      detail: `The tenant already has a config under entity "${entity}"; save a new version with PUT.`,
    });
  }
}

export class ConfigIdMismatchError extends ProblemError {
  constructor(currentId: string, givenId: string) {
    super({
      status: 409,
      code: 'config.id_mismatch',
      title: 'Config id does not match',
      detail: `The current config is "${currentId}", not "${givenId}".`,
    });
  }
}

/** A write based on a representation that is no longer current (If-Match or a racing save). */
export class VersionConflictError extends ProblemError {
  constructor(what: string) {
    super({
      status: 409,
      code: 'config.version_conflict',
      title: 'Version conflict',
      detail: `${what} changed since it was read; read it again and retry with its new ETag.`,
    });
  }
}

/**
 * A config whose values another service reads with a fixed shape breaks that shape: the
 * tenant's charge items under `order-charges` (ADR 0024), refused at the save instead of
 * left out of every basket without a word.
 */
export class ConfigValuesInvalidError extends ProblemError {
  constructor(entity: string, errors: ProblemFieldError[]) {
    super({
      status: 422,
      code: 'config.values_invalid',
      title: 'Invalid config values',
      detail: `The values do not have the shape entity "${entity}" requires; see errors.`,
      errors,
    });
  }
}
