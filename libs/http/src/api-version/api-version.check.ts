import type { FastifyRequest } from 'fastify';
import type { ProblemError } from '../problem/problem.error';
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
  const path = request.url.split('?')[0];
  const exempt = [...ALWAYS_VERSION_EXEMPT_PATHS, ...exemptPaths];
  if (path === '/health' || exempt.some((prefix) => path.startsWith(prefix))) return undefined;

  const value = request.headers[API_VERSION_HEADER];
  if (value === undefined || value === '') return new ApiVersionMissingError();
  const version = Array.isArray(value) ? value.join(',') : value.trim();
  return version === SUPPORTED_API_VERSION ? undefined : new ApiVersionUnsupportedError(version);
}
