import { PROBLEM_CONTENT_TYPE, type ProblemFieldError } from './problem-details';

export interface ProblemErrorOptions {
  status: number;
  /** Stable machine code, `<area>.<reason>`. */
  code: string;
  title: string;
  /** Shown to the client as is: never put internals here. */
  detail?: string;
  errors?: ProblemFieldError[];
  /** Sent with the response, e.g. `WWW-Authenticate` or `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
  /**
   * Members the body starts with, before the problem's own (RFC 9457 extension members): a
   * protocol that names its own error fields, as OAuth does (`error`, `error_description`).
   */
  members?: Record<string, string>;
  /** The answer's Content-Type; problem+json unless a protocol asks for another. */
  mediaType?: string;
}

/**
 * Base of every error a client is meant to see. Modules subclass it for their business
 * errors (`class OrderAlreadyFinalizedError extends ProblemError`) and the global filter of
 * `configureHttpApp` turns it into problem+json.
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: ProblemFieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly members: Readonly<Record<string, string>> | undefined;
  readonly mediaType: string;

  constructor(options: ProblemErrorOptions) {
    super(
      options.detail ?? options.title,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.status = options.status;
    this.code = options.code;
    this.title = options.title;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.members = options.members;
    this.mediaType = options.mediaType ?? PROBLEM_CONTENT_TYPE;
  }
}
