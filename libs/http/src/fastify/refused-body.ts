import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';

/** The route config member `BodyRefusalToHandler` sets. */
const BODY_REFUSAL_TO_HANDLER = 'comandaBodyRefusalToHandler';

/**
 * A JSON body the parser refused (not JSON, empty, over the input guard's limits, not UTF-8),
 * handed to the handler of a route marked with {@link BodyRefusalToHandler} in place of the
 * body. `error` is what the request would have been answered with before the handler.
 */
export class RefusedBody {
  constructor(readonly error: Error) {}
}

/**
 * Marks a route whose answer to a body it cannot parse depends on state its handler reads:
 * the body reaches the handler as a {@link RefusedBody} instead of a 400 before it. The
 * order placement callbacks answer 405 on a finalized order whatever the body (the spec's
 * rule has no condition), so they judge a malformed one too.
 */
export const BodyRefusalToHandler = () => RouteConfig({ [BODY_REFUSAL_TO_HANDLER]: true });

/** Whether `request`'s route takes a refused body as a {@link RefusedBody}. */
export function takesRefusedBody(request: FastifyRequest): boolean {
  const config: object | undefined = request.routeOptions.config;
  return (config as Record<string, unknown> | undefined)?.[BODY_REFUSAL_TO_HANDLER] === true;
}
