import { ProblemError } from '@comanda/http';

const REALM = 'Bearer realm="comanda"';

function quoted(value: string): string {
  return value.replace(/["\\]/g, '');
}

/** RFC 6750 §3.1: a request without authentication information gets no error code. */
export class MissingTokenError extends ProblemError {
  constructor() {
    super({
      status: 401,
      code: 'auth.token_missing',
      title: 'Authentication required',
      detail: 'Send an access token: Authorization: Bearer <token>.',
      headers: { 'WWW-Authenticate': REALM },
    });
  }
}

export class InvalidTokenError extends ProblemError {
  constructor(reason: string) {
    super({
      status: 401,
      code: 'auth.invalid_token',
      title: 'Invalid access token',
      detail: reason,
      headers: {
        'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="${quoted(reason)}"`,
      },
    });
  }
}

export class InsufficientScopeError extends ProblemError {
  constructor(needed: readonly string[]) {
    const scope = needed.join(' ');
    super({
      status: 403,
      code: 'auth.insufficient_scope',
      title: 'Insufficient scope',
      detail: `This operation needs one of these permissions in the token scope: ${scope}.`,
      headers: {
        'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${quoted(scope)}"`,
      },
    });
  }
}
