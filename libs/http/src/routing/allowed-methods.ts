import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { ProblemError } from '../problem/problem.error';

type Router = ReturnType<typeof FindMyWay>;

const routers = new WeakMap<FastifyInstance, Router>();
const routeLists = new WeakMap<FastifyInstance, Array<{ method: string; url: string }>>();
/** The methods the services route; a path asked with any other is answered 405 or 404. */
export const ROUTED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Lets `fastify` route every method Node reads (PROPFIND, SEARCH, PURGE, ...), not only
 * Fastify's usual ones, so a catch-all route registered after it hears them all (Fastify's
 * router would answer 404 for the path). CONNECT is answered 501 before routing.
 */
export function routeEveryMethod(fastify: FastifyInstance): void {
  for (const method of NODE_METHODS) {
    if (method !== 'CONNECT' && !fastify.supportedMethods.includes(method))
      fastify.addHttpMethod(method, { hasBody: true });
  }
}

/**
 * Records every route Fastify registers from now on, so a request for a known path with a
 * method it lacks can be told apart from an unknown path (405 with `Allow`, not 404).
 * Catch-all routes (`*`) are left out: they would make every path known. Paths are matched
 * as Fastify's router matches them (trailing and duplicate slashes, case): `/a/` is known
 * only where Fastify serves `/a/`.
 */
export function trackRoutes(fastify: FastifyInstance): void {
  const { ignoreTrailingSlash, ignoreDuplicateSlashes, caseSensitive } = fastify.initialConfig;
  const router = FindMyWay({ ignoreTrailingSlash, ignoreDuplicateSlashes, caseSensitive });
  routers.set(fastify, router);
  const list: Array<{ method: string; url: string }> = [];
  routeLists.set(fastify, list);
  fastify.addHook('onRoute', (route) => {
    if (route.url === '*' || route.url.endsWith('/*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      list.push({ method, url: route.url });
      try {
        router.on(method as (typeof ROUTED_METHODS)[number], route.url, () => undefined);
      } catch {
        // Already known (Fastify and Nest may both announce a route): nothing to add.
      }
    }
  });
}

/** Every route registered since `trackRoutes` (catch-alls left out): what a service serves. */
export function registeredRoutes(
  fastify: FastifyInstance,
): ReadonlyArray<{ method: string; url: string }> {
  return routeLists.get(fastify) ?? [];
}

/** The methods a known path answers to, or an empty list for a path no route matches. */
export function allowedMethods(fastify: FastifyInstance, path: string): string[] {
  const router = routers.get(fastify);
  if (!router) return [];
  return ROUTED_METHODS.filter((method) => servesPath(router.find(method, path)));
}

/**
 * A route Nest would serve: Nest's Fastify adapter hands a request whose route parameter is
 * empty (`/entities//configs`) to the not-found handler, although the router matched it.
 */
function servesPath(found: ReturnType<Router['find']>): boolean {
  if (found === null) return false;
  for (const [name, value] of Object.entries(found.params)) {
    if (value === '' && name !== '*') return false;
  }
  return true;
}

export class MethodNotAllowedError extends ProblemError {
  constructor(method: string, path: string, allowed: readonly string[]) {
    super({
      status: 405,
      code: 'request.method_not_allowed',
      title: 'Method not allowed',
      detail: `${path} does not answer ${method}; it answers ${allowed.join(', ')}.`,
      headers: { allow: allowed.join(', ') },
    });
  }
}
