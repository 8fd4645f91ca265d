import { STATUS_CODES } from 'node:http';
import { ProblemError } from './problem.error';

// Codes for errors that carry only an HTTP status (Nest's HttpException, plugin errors):
// stable, so clients can branch on them even when no module gave a more precise one.
const CODES_BY_STATUS = new Map<number, string>([
  [400, 'request.bad_request'],
  [401, 'auth.unauthorized'],
  [403, 'auth.forbidden'],
  [404, 'resource.not_found'],
  [405, 'request.method_not_allowed'],
  [406, 'request.not_acceptable'],
  [408, 'request.timeout'],
  [409, 'resource.conflict'],
  [410, 'resource.gone'],
  [411, 'request.length_required'],
  [412, 'request.precondition_failed'],
  [413, 'request.too_large'],
  [414, 'request.uri_too_long'],
  [415, 'request.unsupported_media_type'],
  [417, 'request.expectation_failed'],
  [422, 'request.unprocessable'],
  [428, 'request.precondition_required'],
  [429, 'request.rate_limited'],
  [431, 'request.headers_too_large'],
  [500, 'internal'],
  [501, 'request.not_implemented'],
  [502, 'upstream.bad_gateway'],
  [503, 'service.unavailable'],
  [504, 'upstream.timeout'],
]);

export const INTERNAL_DETAIL =
  'An unexpected error occurred. Quote the request id when reporting it.';

export function statusTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/**
 * The problem for a bare status. The detail is kept for client errors, which describe the
 * request; for server errors it is replaced, since it may describe our internals.
 */
export function problemForStatus(
  status: number,
  detail?: string,
  headers?: Record<string, string>,
): ProblemError {
  const safeStatus = Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
  return new ProblemError({
    status: safeStatus,
    code: CODES_BY_STATUS.get(safeStatus) ?? (safeStatus >= 500 ? 'internal' : 'request.rejected'),
    title: statusTitle(safeStatus),
    detail: safeStatus >= 500 ? INTERNAL_DETAIL : detail || statusTitle(safeStatus),
    headers,
  });
}
