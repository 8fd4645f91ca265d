import { childTraceparent, runWithContext, type RequestContext } from '@comanda/context';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiVersionError } from '../api-version/api-version.check';
import { REQUEST_ID_HEADER } from './request-id';

/**
 * Runs each request inside `runWithContext`. The context is entered twice: in `onRequest`
 * (for anything that runs before the body is read) and again in `preValidation`, because
 * reading the body happens in stream callbacks that do not carry the async context along.
 * From `preValidation` on, Fastify calls the next hooks and the Nest handler from `done`, so
 * guards, pipes, handlers and everything they await see the context.
 */
export function installRequestHooks(
  fastify: FastifyInstance,
  versionExemptPaths: readonly string[],
): void {
  const contexts = new WeakMap<FastifyRequest, RequestContext>();

  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    const incoming = request.headers.traceparent;
    const context: RequestContext = {
      requestId: request.id,
      traceparent: childTraceparent(typeof incoming === 'string' ? incoming : undefined),
    };
    contexts.set(request, context);
    // Checked here, before routing and body parsing, so unknown routes and oversized
    // bodies answer the same version error as real routes.
    runWithContext(context, () => done(apiVersionError(request, versionExemptPaths)));
  });

  fastify.addHook('preValidation', (request, _reply, done) => {
    const context = contexts.get(request);
    if (context) runWithContext(context, () => done());
    else done();
  });

  // A hook registered before ours may answer first (e.g. Nest middleware); the id must
  // still reach the client.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader(REQUEST_ID_HEADER)) reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}
