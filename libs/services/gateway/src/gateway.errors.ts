import { ProblemError } from '@comanda/http';

export class RouteNotFoundError extends ProblemError {
  constructor(method: string, path: string) {
    super({
      status: 404,
      code: 'route.not_found',
      title: 'Route not found',
      detail: `No route matches ${method} ${path}.`,
    });
  }
}

export class InvalidPathError extends ProblemError {
  constructor() {
    super({
      status: 400,
      code: 'request.invalid_path',
      title: 'Invalid path',
      detail: 'The path must not contain "." or ".." segments.',
    });
  }
}

/** RFC 9110 lets these appear once: Node keeps the first and drops the rest, silently. */
export class DuplicateHeaderError extends ProblemError {
  constructor(name: string) {
    super({
      status: 400,
      code: 'request.duplicate_header',
      title: 'Duplicate header',
      detail: `The ${name} header must appear once.`,
    });
  }
}

export class InvalidAuthorizationSchemeError extends ProblemError {
  constructor() {
    super({
      status: 401,
      code: 'auth.invalid_scheme',
      title: 'Invalid authorization scheme',
      detail:
        'The Authorization header must use the Bearer scheme: "Authorization: Bearer <access token>".',
      headers: { 'www-authenticate': 'Bearer realm="comanda"' },
    });
  }
}

export class UnsupportedMediaTypeError extends ProblemError {
  constructor(received: string | undefined, accepted: string) {
    super({
      status: 415,
      code: 'request.unsupported_media_type',
      title: 'Unsupported media type',
      detail: `This endpoint accepts a body of Content-Type ${accepted}${received ? `, not ${received}` : ''}.`,
      headers: { accept: accepted },
    });
  }
}

export class BodyTooLargeError extends ProblemError {
  constructor(limitBytes: number) {
    super({
      status: 413,
      code: 'request.too_large',
      title: 'Request body too large',
      detail: `The request body exceeds the limit of ${limitBytes} bytes.`,
    });
  }
}

export class RateLimitedError extends ProblemError {
  constructor(retryAfterSeconds: number) {
    super({
      status: 429,
      code: 'request.rate_limited',
      title: 'Too many requests',
      detail: `Rate limit reached; retry after ${retryAfterSeconds} s.`,
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** Seconds a caller is asked to wait when a service does not answer (as for its database). */
export const UPSTREAM_RETRY_AFTER_SECONDS = 5;

export class UpstreamUnavailableError extends ProblemError {
  constructor(upstream: string, cause: unknown) {
    super({
      status: 502,
      code: 'upstream.unavailable',
      title: 'Bad gateway',
      detail: `The ${upstream} service did not answer. Retry later and quote the request id if it persists.`,
      // Mostly a service restarting: a client (a POS with a report) is told when to try again.
      headers: { 'retry-after': String(UPSTREAM_RETRY_AFTER_SECONDS) },
      cause,
    });
  }
}

export class UpstreamTimeoutError extends ProblemError {
  constructor(upstream: string, cause: unknown) {
    super({
      status: 504,
      code: 'upstream.timeout',
      title: 'Gateway timeout',
      detail: `The ${upstream} service did not answer in time. Retry later and quote the request id if it persists.`,
      cause,
    });
  }
}
