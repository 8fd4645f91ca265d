import { ProblemError } from '@comanda/http';

export class ConnectionNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'connection.not_found',
      title: 'Connection not found',
      detail: `No connection "${id}" of that type exists under this entity.`,
    });
  }
}

export class ConnectionAlreadyExistsError extends ProblemError {
  constructor(id: string, entityType: string) {
    super({
      status: 409,
      code: 'connection.already_exists',
      title: 'Connection already exists',
      detail: `A connection "${id}" of type ${entityType} already exists under this entity.`,
    });
  }
}

export class ConnectionAmbiguousError extends ProblemError {
  constructor(id: string) {
    super({
      status: 409,
      code: 'connection.ambiguous',
      title: 'Connection is ambiguous',
      detail: `Several connections "${id}" of different types exist; name one with entity_type.`,
    });
  }
}
