import type { ProblemFieldError } from './problem-details';

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
  }
}
