import { HttpException, NotFoundException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { problemFromFastifyError } from '../fastify/fastify-errors';
import { allowedMethods, MethodNotAllowedError } from '../routing/allowed-methods';
import { problemFromDatabaseError } from './database-errors';
import { ProblemError } from './problem.error';
import { problemForStatus } from './status-problems';

/**
 * A service's own errors as the problem a client sees; `undefined` for any error it does
 * not own (those take the kit's mapping).
 */
export type DomainProblems = (exception: unknown) => ProblemError | undefined;

export interface MappedProblem {
  problem: ProblemError;
  /** Not a deliberate answer to the client: log it with its stack. */
  unexpected: boolean;
  /** A dependency that cannot be reached (503): worth a warning without a stack. */
  outage?: boolean;
}

function httpExceptionDetail(exception: HttpException): string | undefined {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : undefined;
}

function requestPath(request: FastifyRequest): string {
  return request.url.split('?')[0];
}

/**
 * The spec's configuration group (`/entities/{entity}/...`) answers its errors with one of
 * 400, 401, 404, 409, 422, 500, 501 (and 403, which docs/architecture.md adds for a missing
 * permission). A request refused for its size or media type (413, 414, 415) is a 400 there,
 * with the same code, title and detail (ADR 0053).
 */
const CONFIGURATION_GROUP = '/entities/';
const OUTSIDE_CONFIGURATION_GROUP_STATUSES = new Set([413, 414, 415]);

function withinConfigurationGroupStatuses(
  mapped: MappedProblem,
  request: FastifyRequest,
): MappedProblem {
  const { problem } = mapped;
  if (!OUTSIDE_CONFIGURATION_GROUP_STATUSES.has(problem.status)) return mapped;
  if (!request.url.startsWith(CONFIGURATION_GROUP)) return mapped;
  return {
    ...mapped,
    problem: new ProblemError({
      status: 400,
      code: problem.code,
      title: problem.title,
      detail: problem.detail,
      errors: problem.errors,
      headers: { ...problem.headers },
    }),
  };
}

/** Every thrown value, as the problem the client sees. */
export function exceptionToProblem(
  exception: unknown,
  request: FastifyRequest,
  domainProblems?: DomainProblems,
): MappedProblem {
  return withinConfigurationGroupStatuses(
    mapException(exception, request, domainProblems),
    request,
  );
}

function mapException(
  exception: unknown,
  request: FastifyRequest,
  domainProblems?: DomainProblems,
): MappedProblem {
  if (exception instanceof ProblemError) {
    return { problem: exception, unexpected: exception.status >= 500 };
  }
  const fromDomain = domainProblems?.(exception);
  if (fromDomain) return { problem: fromDomain, unexpected: fromDomain.status >= 500 };
  if (exception instanceof NotFoundException && request.is404) {
    const path = requestPath(request);
    const allowed = allowedMethods(request.server, path);
    if (allowed.length > 0) {
      return {
        problem: new MethodNotAllowedError(request.method, path, allowed),
        unexpected: false,
      };
    }
    return {
      problem: new ProblemError({
        status: 404,
        code: 'route.not_found',
        title: 'Route not found',
        detail: `No route matches ${request.method} ${requestPath(request)}.`,
      }),
      unexpected: false,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return {
      problem: problemForStatus(status, httpExceptionDetail(exception)),
      unexpected: status >= 500,
    };
  }
  const fromDatabase = problemFromDatabaseError(exception);
  if (fromDatabase) {
    return { problem: fromDatabase, unexpected: false, outage: fromDatabase.status === 503 };
  }
  const fromFastify = problemFromFastifyError(exception, request);
  if (fromFastify) return { problem: fromFastify, unexpected: fromFastify.status >= 500 };
  return { problem: problemForStatus(500), unexpected: true };
}
