import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '../request/request-id';
import { exceptionToProblem, type MappedProblem } from './exception-to-problem';
import { problemBody } from './problem-details';
import type { ProblemError } from './problem.error';

/** Where a request's unexpected error or outage goes (a Nest `Logger`). */
export interface ProblemLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

const outages = new WeakSet<object>();

/**
 * The request failed because a dependency was away (ADR 0054): its request line is a
 * warning, not an error, whatever status it was answered with. Kept on Node's request, which
 * a service of the gateway's process shares with the gateway's line (ADR 0036).
 */
export function markOutage(request: FastifyRequest | IncomingMessage): void {
  const raw = (request as FastifyRequest).raw ?? request;
  outages.add(raw);
}

/** Whether `markOutage` marked this request. */
export function failedForOutage(request: FastifyRequest): boolean {
  return outages.has(request.raw);
}

/**
 * Answers a Fastify hook's request with the problem for `error`, exactly as the global
 * filter would: for hooks that run outside Nest (before routing), which the filter never sees.
 */
export function replyWithProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): FastifyReply {
  const { problem } = exceptionToProblem(error, request);
  return sendProblem(reply, problem, request.id);
}

/**
 * The global filter's answer for a request served outside Nest (a plain Fastify route): the
 * problem for `error`, and an unexpected error logged with its stack and request id. Nothing
 * is sent when an answer already went out.
 */
export function answerWithProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  logger: ProblemLogger,
): void {
  const mapped = exceptionToProblem(error, request);
  const { problem } = mapped;
  logProblem(logger, request, request.id, error, mapped);
  if (reply.sent) {
    // Hijacked (served on the raw response): answer there unless something already did.
    if (!reply.raw.headersSent && !reply.raw.destroyed) {
      writeProblem(reply.raw, problem, request.id);
    }
    return;
  }
  sendProblem(reply, problem, request.id);
}

/**
 * What an answered error leaves in the log, the global filter's and a plain route's alike:
 * an unexpected one with its stack; a dependency away (ADR 0054) as one warning with its
 * causes and no stack, its request marked so that its request line is a warning too.
 */
export function logProblem(
  logger: ProblemLogger,
  request: FastifyRequest | IncomingMessage,
  requestId: string,
  error: unknown,
  { problem, unexpected, outage }: MappedProblem,
): void {
  const where = { requestId, method: request.method, url: request.url };
  if (unexpected) logger.error({ err: error, ...where }, 'Request failed with an unexpected error');
  if (outage) {
    markOutage(request);
    logger.warn(
      { ...where, status: problem.status, cause: errorText(error) },
      'Request failed: a dependency cannot be reached',
    );
  }
}

/** An error's message and those of its causes, for a line without a stack. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    parts.push(current.message);
    const next = current as Error & { driverError?: unknown };
    current = next.driverError instanceof Error ? next.driverError : next.cause;
  }
  return parts.filter((part, index) => parts.indexOf(part) === index).join(': ');
}

function sendProblem(reply: FastifyReply, problem: ProblemError, requestId: string): FastifyReply {
  return reply
    .status(problem.status)
    .headers(problem.headers)
    .header(REQUEST_ID_HEADER, requestId)
    .header('content-type', problem.mediaType)
    .send(JSON.stringify(problemBody(problem, requestId)));
}

/** The problem written on Node's own response (no Fastify reply wraps it, or it was handed on). */
export function writeProblem(response: ServerResponse, problem: ProblemError, requestId: string) {
  if (response.headersSent) return;
  response.statusCode = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) response.setHeader(name, value);
  response.setHeader(REQUEST_ID_HEADER, requestId);
  response.setHeader('content-type', problem.mediaType);
  response.end(JSON.stringify(problemBody(problem, requestId)));
}
