import { childTraceparent, runWithContext, type RequestContext } from '@comanda/context';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../problem/problem.error';
import { replyWithProblem } from '../problem/reply-with-problem';
import { REQUEST_ID_HEADER } from './request-id';

const MISSING_HOST = new ProblemError({
  status: 400,
  code: 'request.host_missing',
  title: 'Host header missing',
  detail: 'Send a Host header with the request (RFC 9112, section 3.2).',
});

const VERSION_NOT_SUPPORTED = new ProblemError({
  status: 505,
  code: 'request.http_version_not_supported',
  title: 'HTTP version not supported',
  detail: 'This server reads HTTP/1.x only: send the request as HTTP/1.1.',
});

const REPEATED_HOST = new ProblemError({
  status: 400,
  code: 'request.host_repeated',
  title: 'Host header repeated',
  detail: 'Send one Host header with the request, not several (RFC 9112, section 3.2).',
});

/** The Host lines of a request: Node keeps the first and drops the others without a word. */
function hostLines(rawHeaders: string[]): number {
  let lines = 0;
  // Names at even indexes; most are not four characters long, and need no lower-cased copy.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === 4 && name.toLowerCase() === 'host') lines += 1;
  }
  return lines;
}

/**
 * What is wrong with a request's version or Host, checked here, in the hook every request runs
 * anyway, rather than by Node: Node answers an HTTP/1.1 request without Host (RFC 9112 §3.2)
 * with an empty 400, not a problem (`requireHostHeader: false` in createFastifyAdapter hands
 * the check over), keeps the first of several Host lines without a word, and answers a bare
 * request line (HTTP/0.9: no headers, so no token, no Host) or an HTTP/2 line as HTTP/1.1.
 */
function requestLineProblem(raw: IncomingMessage): ProblemError | undefined {
  if (raw.httpVersionMajor !== 1) return VERSION_NOT_SUPPORTED;
  if (raw.headers.host === undefined) return raw.httpVersion === '1.1' ? MISSING_HOST : undefined;
  // The tenant of `/connect/token` and the well-known paths is read from Host: a proxy before
  // us may have read another line than the first.
  return hostLines(raw.rawHeaders) > 1 ? REPEATED_HOST : undefined;
}

/**
 * Runs each request inside `runWithContext`, from its first hook on. Fastify calls the next
 * hooks and the route handler from `done`, and binds its body parsing to the request's
 * async resource, so Nest middleware, guards, pipes, handlers and everything they await see
 * the context. Installed when the adapter is created, so that it runs before the hooks Nest
 * adds (middleware through @fastify/middie).
 */
export function installRequestContext(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    const hostProblem = requestLineProblem(request.raw);
    if (hostProblem) {
      // And the connection ends with it, as Node's answer ended it.
      reply.header('connection', 'close');
      replyWithProblem(request, reply, hostProblem);
      return;
    }
    const incoming = request.headers.traceparent;
    const context: RequestContext = {
      requestId: request.id,
      traceparent: childTraceparent(typeof incoming === 'string' ? incoming : undefined),
    };
    runWithContext(context, () => done());
  });
}
