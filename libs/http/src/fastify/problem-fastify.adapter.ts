import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemFromFastifyError } from './fastify-errors';

type ErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * Nest hands Fastify's own errors (body limit, content-type parsers) to the exception
 * filters only after turning them into a bare `HttpException(message, status)`, which loses
 * Fastify's error code. Translating them first keeps precise problem codes such as
 * `request.malformed_json`.
 */
export class ProblemFastifyAdapter extends FastifyAdapter {
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
