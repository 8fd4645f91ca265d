import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemFromFastifyError } from './fastify-errors';
import { installJsonInputGuard } from './json-input-guard';

const DEFAULT_BODY_LIMIT = 1024 * 1024;

type ErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * Nest hands Fastify's own errors (body limit, content-type parsers) to the exception
 * filters only after turning them into a bare `HttpException(message, status)`, which loses
 * Fastify's error code. Translating them first keeps precise problem codes such as
 * `request.malformed_json`.
 */
export class ProblemFastifyAdapter extends FastifyAdapter {
  /** Nest's JSON parser, replaced by one that bounds depth, width and length first. */
  override registerParserMiddleware(prefix?: string, rawBody?: boolean): void {
    const first = !this.isParserRegistered;
    super.registerParserMiddleware(prefix, rawBody);
    if (!first) return;
    const fastify = this.getInstance();
    installJsonInputGuard(fastify, fastify.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT);
  }

  override setErrorHandler(handler: Parameters<FastifyAdapter['setErrorHandler']>[0]) {
    const nestHandler = handler as unknown as ErrorHandler;
    const translating: ErrorHandler = (error, request, reply) =>
      nestHandler(
        (problemFromFastifyError(error, request) as FastifyError | undefined) ?? error,
        request,
        reply,
      );
    return super.setErrorHandler(
      translating as unknown as Parameters<FastifyAdapter['setErrorHandler']>[0],
    );
  }
}
