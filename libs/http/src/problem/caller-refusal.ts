import type { FastifyRequest } from 'fastify';

const callerRefusals = new WeakSet<object>();

/**
 * The request was refused for what its caller did (a rate limit), and answered 500 only
 * because its path lists no other status (the partner's event receiver): its request line is
 * the refusal's, not an error's, so a partner that floods the receiver does not fill the log
 * with errors.
 */
export function markCallerRefusedAs500(request: FastifyRequest): void {
  callerRefusals.add(request.raw);
}

/** Whether `markCallerRefusedAs500` marked this request. */
export function callerRefusedAs500(request: FastifyRequest): boolean {
  return callerRefusals.has(request.raw);
}
