import type { FastifyRequest } from 'fastify';
import type { ProblemError } from '../problem/problem.error';
import { urlPath } from '../request/url-path';
import {
  ALWAYS_VERSION_EXEMPT_PATHS,
  API_VERSION_HEADER,
  SUPPORTED_API_VERSION,
} from './api-version';
import { ApiVersionMissingError, ApiVersionUnsupportedError } from './api-version.errors';

/** The error for a request whose `X-Api-Version` is missing or unsupported, if any. */
export function apiVersionError(
  request: FastifyRequest,
  exemptPaths: readonly string[],
): ProblemError | undefined {
  const path = urlPath(request.url);
  if (
    path === '/health' ||
    isExempt(path, ALWAYS_VERSION_EXEMPT_PATHS) ||
    isExempt(path, exemptPaths)
  )
    return undefined;

  const value = request.headers[API_VERSION_HEADER];
  if (value === undefined || value === '') return new ApiVersionMissingError();
  const version = Array.isArray(value) ? value.join(',') : value.trim();
  return version === SUPPORTED_API_VERSION ? undefined : new ApiVersionUnsupportedError(version);
}

/** Checked on every request: no list or closure made per call. */
function isExempt(path: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
  return false;
}
