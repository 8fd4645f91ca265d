import type { FastifyRequest } from 'fastify';

/**
 * Fastify's own key of a request's route context (the route it matched). Read through
 * `request.routeOptions`, the same context is copied into a new object of twelve members on
 * every access; the request path reads the pattern several times per request (metrics,
 * authentication before the body, the gateway's operational routes). Fastify is pinned
 * exactly (by @nestjs/platform-fastify) and has no `exports` map; were the key gone,
 * `routeOptions` would still answer.
 */
const { kRouteContext } = require('fastify/lib/symbols') as { kRouteContext?: symbol };

interface RouteContext {
  config?: { url?: string };
}

/**
 * The pattern of the route `request` matched (`/entities/:entity/configs`), or undefined when
 * none did: `request.routeOptions.url` without the copy.
 */
export function routeUrl(request: FastifyRequest): string | undefined {
  if (kRouteContext === undefined) return request.routeOptions.url;
  const context = (request as unknown as Record<symbol, RouteContext | undefined>)[kRouteContext];
  return context?.config?.url;
}
