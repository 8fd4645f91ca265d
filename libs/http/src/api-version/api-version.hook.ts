import type { FastifyInstance } from 'fastify';
import { apiVersionError } from './api-version.check';

/**
 * Checked in `onRequest`, before routing and body parsing, so unknown routes and oversized
 * bodies answer the same version error as real routes.
 */
export function installApiVersionCheck(
  fastify: FastifyInstance,
  exemptPaths: readonly string[],
): void {
  fastify.addHook('onRequest', (request, _reply, done) =>
    done(apiVersionError(request, exemptPaths)),
  );
}
