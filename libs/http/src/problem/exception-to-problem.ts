import { HttpException, NotFoundException } from '@nestjs/common';
import { databaseUnavailable } from '@comanda/persistence';
import type { FastifyRequest } from 'fastify';
import { problemFromFastifyError } from '../fastify/fastify-errors';
import { urlPath } from '../request/url-path';
import { allowedMethods, MethodNotAllowedError } from '../routing/allowed-methods';
import { markCallerRefusedAs500 } from './caller-refusal';
import { problemFromDatabaseError } from './database-errors';
import { OAuthError } from './oauth.error';
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
  /** A dependency that cannot be reached or did not answer: a warning without a stack. */
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
  return urlPath(request.url);
}

/** A dependency that cannot be reached or does not answer in time: bad gateway, unavailable, timeout. */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

/** Each of them answered as a 500, where the spec lists no other failure (below). */
const UNAVAILABLE_AS_500: ReadonlyArray<[number, number]> = [
  [502, 500],
  [503, 500],
  [504, 500],
];

/**
 * Where the spec lists the statuses a group of paths answers, a problem of another status
 * takes the listed one, with the same code, title, detail and headers:
 * - the configuration group (`/entities/{entity}/...`) answers 400, 401, 404, 409, 422, 500,
 *   501 (and 403, which docs/architecture.md adds for a missing permission): a request
 *   refused for its size or media type (413, 414, 415) is a 400 there (ADR 0053); a database
 *   or an upstream that cannot be reached or does not answer in time (502, 503, 504) a 500
 *   (ADR 0054);
 * - the partner's notification receiver (`/notifications/merchants/{id}/events`): the partner
 *   treats 500, and only 500 as the spec shows it, as a delivery that failed and is to be sent
 *   again, so every answer that means "not stored, try again" is a 500 there: the gateway's
 *   rate limit (429) and an upstream that cannot be reached or does not answer in time (502,
 *   503, 504; ADR 0054). (The receiver itself answers any failure to store an event 500.)
 */
const LISTED_STATUSES: ReadonlyArray<{ prefix: string; statuses: ReadonlyMap<number, number> }> = [
  {
    prefix: '/entities/',
    statuses: new Map([[413, 400], [414, 400], [415, 400], ...UNAVAILABLE_AS_500]),
  },
  {
    prefix: '/notifications/merchants/',
    statuses: new Map([[429, 500], ...UNAVAILABLE_AS_500]),
  },
];

function withinListedStatuses(mapped: MappedProblem, request: FastifyRequest): MappedProblem {
  const { problem } = mapped;
  for (const { prefix, statuses } of LISTED_STATUSES) {
    const status = statuses.get(problem.status);
    if (status === undefined || !request.url.startsWith(prefix)) continue;
    if (problem.status < 500) markCallerRefusedAs500(request);
    return {
      ...mapped,
      problem: new ProblemError({
        status,
        code: problem.code,
        title: problem.title,
        detail: problem.detail,
        errors: problem.errors,
        headers: { ...problem.headers },
        members: problem.members,
        mediaType: problem.mediaType,
        cause: problem.cause,
      }),
    };
  }
  return mapped;
}

/** The token endpoint: under a tenant's path, or at the root of its own issuer host. */
const TOKEN_ENDPOINT = /^(?:\/auth\/[^/?]+)?\/connect\/token(?:\?|$)/;

/** Refusals of a request's form, before the endpoint, that OAuth calls `invalid_request`. */
const OAUTH_INVALID_REQUEST_CODES = new Set([
  'request.unsupported_media_type',
  // RFC 6749 §5.2: "includes ... more than one mechanism for authenticating the client".
  'request.duplicate_header',
]);

/**
 * The token endpoint speaks OAuth (RFC 6749 §5.2): a body that is not a form, refused for its
 * media type before the endpoint (by the gateway, or by a service with no parser for it), or
 * a request with two Authorization (or Content-Type) headers, refused by the gateway, is the
 * `invalid_request` an OAuth client reads, not a problem.
 */
function withinOAuth(mapped: MappedProblem, request: FastifyRequest): MappedProblem {
  const { problem } = mapped;
  const invalidRequest = problem.status === 415 || OAUTH_INVALID_REQUEST_CODES.has(problem.code);
  if (!invalidRequest || !TOKEN_ENDPOINT.test(request.url)) return mapped;
  return { ...mapped, problem: new OAuthError('invalid_request', problem.detail ?? problem.title) };
}

/** Every thrown value, as the problem the client sees. */
export function exceptionToProblem(
  exception: unknown,
  request: FastifyRequest,
  domainProblems?: DomainProblems,
): MappedProblem {
  const mapped = mapException(exception, request, domainProblems);
  return withinOAuth(withinListedStatuses(mapped, request), request);
}

function mapException(
  exception: unknown,
  request: FastifyRequest,
  domainProblems?: DomainProblems,
): MappedProblem {
  if (exception instanceof ProblemError) {
    // An upstream or the database away (the receiver's "not stored" carries the database's
    // error as its cause): an outage to warn about, not a bug to log with its stack.
    const outage =
      OUTAGE_STATUSES.has(exception.status) ||
      (exception.status >= 500 && databaseUnavailable(exception.cause));
    return { problem: exception, unexpected: exception.status >= 500 && !outage, outage };
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
    return {
      problem: fromDatabase,
      unexpected: false,
      outage: OUTAGE_STATUSES.has(fromDatabase.status),
    };
  }
  const fromFastify = problemFromFastifyError(exception, request);
  if (fromFastify) return { problem: fromFastify, unexpected: fromFastify.status >= 500 };
  return { problem: problemForStatus(500), unexpected: true };
}
