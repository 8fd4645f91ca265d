import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '../request/request-id';
import { exceptionToProblem } from './exception-to-problem';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-details';

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
  return reply
    .status(problem.status)
    .headers(problem.headers)
    .header(REQUEST_ID_HEADER, request.id)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problemBody(problem, request.id)));
}
