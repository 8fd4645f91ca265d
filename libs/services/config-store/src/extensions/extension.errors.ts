import { ProblemError, type ProblemFieldError } from '@comanda/http';

export class ExtensionNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'extension.not_found',
      title: 'Extension not found',
      detail: `No extension "${id}" is visible here.`,
    });
  }
}

export class ExtensionIdTakenError extends ProblemError {
  constructor(id: string) {
    super({
      status: 409,
      code: 'extension.id_taken',
      title: 'Extension id taken',
      detail: `The extension id "${id}" belongs to another publisher.`,
    });
  }
}

export class ExtensionAlreadyExistsError extends ProblemError {
  /** `entity`: where the caller's extension lives (an id is the tenant's, under one entity). */
  constructor(id: string, entity: string) {
    super({
      status: 409,
      code: 'extension.already_exists',
      title: 'Extension already exists',
      detail: `You already published "${id}" under entity "${entity}"; add or change a version with PUT /entities/${entity}/extensions/${id}.`,
    });
  }
}

export class ExtensionPublisherMismatchError extends ProblemError {
  constructor(id: string) {
    super({
      status: 409,
      code: 'extension.not_publisher',
      title: 'Not the publisher',
      detail: `Only the publisher of "${id}" may change or remove it.`,
    });
  }
}

/** Each reference that names no extension version the caller may see, by its input path. */
export class InvalidExtensionReferencesError extends ProblemError {
  constructor(errors: ProblemFieldError[]) {
    super({
      status: 422,
      code: 'extension.reference_invalid',
      title: 'Invalid extension reference',
      detail:
        errors.length === 1
          ? 'An extension reference names no extension version you may see; see errors.'
          : `${errors.length} extension references name no extension version you may see; see errors.`,
      errors,
    });
  }
}
