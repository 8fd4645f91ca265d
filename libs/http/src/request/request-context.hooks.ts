import { childTraceparent, runWithContext, type RequestContext } from '@comanda/context';
import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from './request-id';

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
    const incoming = request.headers.traceparent;
    const context: RequestContext = {
      requestId: request.id,
      traceparent: childTraceparent(typeof incoming === 'string' ? incoming : undefined),
    };
    runWithContext(context, () => done());
  });
}
