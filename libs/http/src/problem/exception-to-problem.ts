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
 * Where the spec lists the statuses a group of paths answers, a problem of another status
 * takes the listed one, with the same code, title, detail and headers:
 * - the configuration group (`/entities/{entity}/...`) answers 400, 401, 404, 409, 422, 500,
 *   501 (and 403, which docs/architecture.md adds for a missing permission): a request
 *   refused for its size or media type (413, 414, 415) is a 400 there (ADR 0053), and a
 *   database that cannot be reached (503) a 500 (ADR 0054). (The partner's notification
 *   receiver answers any failure to store an event 500 itself: PartnerEventNotStoredError.)
 */
const LISTED_STATUSES: ReadonlyArray<{ prefix: string; statuses: ReadonlyMap<number, number> }> = [
  {
    prefix: '/entities/',
    statuses: new Map([
      [413, 400],
      [414, 400],
      [415, 400],
      [503, 500],
    ]),
  },
];

function withinListedStatuses(mapped: MappedProblem, request: FastifyRequest): MappedProblem {
  const { problem } = mapped;
  for (const { prefix, statuses } of LISTED_STATUSES) {
    const status = statuses.get(problem.status);
    if (status === undefined || !request.url.startsWith(prefix)) continue;
    return {
      ...mapped,
      problem: new ProblemError({
        status,
        code: problem.code,
        title: problem.title,
        detail: problem.detail,
        errors: problem.errors,
        headers: { ...problem.headers },
      }),
    };
  }
  return mapped;
}

/** Every thrown value, as the problem the client sees. */
export function exceptionToProblem(
  exception: unknown,
  request: FastifyRequest,
  domainProblems?: DomainProblems,
): MappedProblem {
  return withinListedStatuses(mapException(exception, request, domainProblems), request);
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
