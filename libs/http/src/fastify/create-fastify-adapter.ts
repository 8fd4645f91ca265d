import type { FastifyAdapter } from '@nestjs/platform-fastify';
import { installRequestContext } from '../request/request-context.hooks';
import { requestIdFor } from '../request/request-id';
import { ProblemFastifyAdapter } from './problem-fastify.adapter';

export interface FastifyAdapterOptions {
  /** Largest accepted request body in bytes; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Content types whose body reaches handlers as a plain string (`text/plain` always does). */
  rawContentTypes?: string[];
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export function createFastifyAdapter(options: FastifyAdapterOptions = {}): FastifyAdapter {
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const adapter = new ProblemFastifyAdapter({
    bodyLimit,
    // Logs go through pino via nestjs-pino (see loggingModule), with our request id.
    logger: false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Behind the gateway or an ingress, X-Forwarded-* is set by whoever calls us; services
    // must not believe it.
    trustProxy: false,
  });
  const fastify = adapter.getInstance();
  installRequestContext(fastify);
  for (const type of options.rawContentTypes ?? []) {
    if (fastify.hasContentTypeParser(type)) continue;
    fastify.addContentTypeParser(type, { parseAs: 'string', bodyLimit }, (_request, body, done) =>
      done(null, body),
    );
  }
  return adapter;
}
