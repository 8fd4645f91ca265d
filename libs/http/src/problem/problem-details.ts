import type { ProblemError } from './problem.error';

/** One failing input of a request, e.g. `{ path: 'items[0].quantity', message: '...' }`. */
export interface ProblemFieldError {
  path: string;
  message: string;
}

/** The RFC 9457 body every Comanda service answers for a status of 400 or more. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable machine code, `<area>.<reason>` (e.g. `order.already_finalized`). */
  code: string;
  requestId: string;
  errors?: ProblemFieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

const PROBLEM_TYPE_BASE = 'https://comanda.dev/problems/';

/** The `type` URI of a problem code; one page per code documents it. */
export function problemTypeUri(code: string): string {
  return `${PROBLEM_TYPE_BASE}${encodeURIComponent(code)}`;
}

/** The body a problem is answered with. */
export function problemBody(problem: ProblemError, requestId: string): ProblemDetails {
  return {
    ...problem.members,
    type: problemTypeUri(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail ?? problem.title,
    code: problem.code,
    requestId,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}
