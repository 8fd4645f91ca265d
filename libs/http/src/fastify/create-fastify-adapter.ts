import type { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithProblem } from '../problem/reply-with-problem';
import { rewriteAbsoluteForm } from './absolute-form';
import { answerClientError, answerUnservedRequests } from './client-errors';
import { MAX_IDENTIFIER_LENGTH } from '../validation/identifier-length';
import { installRequestContext } from '../request/request-context.hooks';
import { requestIdFor } from '../request/request-id';
import {
  capConnectionsPerAddress,
  DEFAULT_SERVER_TIMEOUTS,
  serverTimeoutOptions,
  type ServerTimeouts,
} from './connection-limits';
import { ProblemFastifyAdapter } from './problem-fastify.adapter';
import { installLeanAsyncResourceBind } from './lean-async-resource-bind';
import { contentCodingRefusal } from './content-coding';
import { utf8Body } from './utf8-body';

export interface FastifyAdapterOptions {
  /** Largest accepted request body in bytes; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Content types whose body reaches handlers as a plain (UTF-8) string; `text/plain` only when listed. */
  rawContentTypes?: string[];
  /** Header, request and keep-alive timeouts; defaults in DEFAULT_SERVER_TIMEOUTS. */
  timeouts?: Partial<ServerTimeouts>;
  /** Open connections one peer address may hold; 0 or absent: no cap (internal listeners). */
  maxConnectionsPerAddress?: number;
  /** Longest path parameter; default MAX_IDENTIFIER_LENGTH (a catch-all route needs more). */
  maxParamLength?: number;
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export function createFastifyAdapter(options: FastifyAdapterOptions = {}): FastifyAdapter {
  installLeanAsyncResourceBind();
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const timeouts = serverTimeoutOptions({ ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts });
  const adapter = new ProblemFastifyAdapter({
    bodyLimit,
    // No socket may sit on a half-sent request forever: a handful of slow clients would
    // otherwise hold the server (slowloris).
    // A missing Host is refused as a problem by installRequestContext instead of Node's empty 400.
    http: { ...timeouts, requireHostHeader: false },
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    // Logs go through pino (see loggingModule and installRequestLogging), with our request id.
    logger: false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Behind the gateway or an ingress, X-Forwarded-* is set by whoever calls us; services
    // must not believe it.
    trustProxy: false,
    // A path parameter longer than any identifier names nothing: refused before any handler.
    routerOptions: { maxParamLength: options.maxParamLength ?? MAX_IDENTIFIER_LENGTH },
    // Errors Fastify's router raises itself (bad URL, parameter too long) are problems too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      replyWithProblem(request, reply, error);
    },
    // And so are those Node raises before Fastify has a request (timeout, header size).
    clientErrorHandler: answerClientError,
  });
  const fastify = adapter.getInstance();
  // `GET http://host/path` (RFC 9112's absolute form) is routed as `/path`.
  fastify.server.prependListener('request', rewriteAbsoluteForm);
  answerUnservedRequests(fastify.server);
  if (options.maxConnectionsPerAddress) {
    capConnectionsPerAddress(fastify.server, options.maxConnectionsPerAddress);
  }
  installRequestContext(fastify);
  // Fastify parses text/plain by default; a service takes it only when it says so, like the
  // gateway, so its own port answers 415 as the gateway does. When it does, its body is read
  // as the other raw types' is.
  fastify.removeContentTypeParser('text/plain');
  for (const type of options.rawContentTypes ?? []) {
    if (fastify.hasContentTypeParser(type)) continue;
    fastify.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit },
      (request, body: Buffer, done) => {
        const coded = contentCodingRefusal(request.headers['content-encoding']);
        if (coded) return done(coded, undefined);
        try {
          done(null, utf8Body(body, 'text'));
        } catch (error) {
          done(error as Error, undefined);
        }
      },
    );
  }
  return adapter;
}
