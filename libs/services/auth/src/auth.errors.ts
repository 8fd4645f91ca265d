import { ProblemError } from '@comanda/http';

export class TenantNotFoundError extends ProblemError {
  constructor(tenantId: string) {
    super({
      status: 404,
      code: 'auth.tenant_not_found',
      title: 'Tenant not found',
      detail: `No tenant "${tenantId}".`,
    });
  }
}

export class TenantAlreadyExistsError extends ProblemError {
  constructor(tenantId: string) {
    super({
      status: 409,
      code: 'auth.tenant_exists',
      title: 'Tenant already exists',
      detail: `A tenant "${tenantId}" exists already.`,
    });
  }
}

export class IssuerHostTakenError extends ProblemError {
  /** `platformsOwn`: the host of COMANDA_PUBLIC_URL, whose root answers for the platform. */
  constructor(host: string, platformsOwn = false) {
    super({
      status: 409,
      code: 'auth.issuer_host_taken',
      title: 'Issuer host taken',
      detail: platformsOwn
        ? `${host} is the platform's own host (COMANDA_PUBLIC_URL), not a tenant's.`
        : `Another tenant issues tokens on ${host}.`,
    });
  }
}

export class ClientNotFoundError extends ProblemError {
  constructor(clientId: string) {
    super({
      status: 404,
      code: 'auth.client_not_found',
      title: 'Client not found',
      detail: `No client "${clientId}".`,
    });
  }
}

export class ClientRevokedError extends ProblemError {
  constructor(clientId: string) {
    super({
      status: 409,
      code: 'auth.client_revoked',
      title: 'Client revoked',
      detail: `Client "${clientId}" is revoked; create a new one.`,
    });
  }
}

/** A client request that is well-formed but breaks a rule (contacts, tenants, grants). */
export class InvalidClientDefinitionError extends ProblemError {
  constructor(path: string, message: string) {
    super({
      status: 422,
      code: 'auth.invalid_client_definition',
      title: 'Invalid client definition',
      detail: message,
      errors: [{ path, message }],
    });
  }
}

export class TooManyFailedAttemptsError extends ProblemError {
  constructor(retryAfterSeconds: number) {
    super({
      status: 429,
      code: 'auth.too_many_failed_attempts',
      title: 'Too many failed attempts',
      detail: `Too many failed client authentications; retry in ${retryAfterSeconds} s.`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
