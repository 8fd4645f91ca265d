import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { closeAfterAnswer, replyWithProblem, routeUrl } from '@comanda/http';
import { PUBLIC_ROUTE } from '../decorators/security-metadata';
import { BearerTokenVerifier } from '../verification/bearer-token.verifier';
import { attachPrincipal } from './principal-of-request';

/** Nest's RequestMethod, by index. */
const METHOD_NAMES = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/** `/payments/merchants/:id` as Nest registers it with Fastify, whatever slashes were declared. */
function routePath(...parts: string[]): string {
  const path = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment.length > 0)
    .join('/');
  return `/${path}`;
}

/** `METHOD /path` of every route of the service's controllers that needs a bearer token. */
export function protectedRoutes(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  reflector: Reflector,
): Set<string> {
  const routes = new Set<string>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype;
    if (!controller || typeof controller !== 'function') continue;
    const prototype = controller.prototype as Record<string, unknown>;
    const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      if (reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [handler, controller]) === true) {
        continue;
      }
      const method = METHOD_NAMES[(Reflect.getMetadata(METHOD_METADATA, handler) as number) ?? 0];
      for (const prefix of prefixes) {
        for (const path of [paths].flat()) {
          routes.add(`${method} ${routePath(prefix ?? '', path)}`);
        }
      }
    }
  }
  return routes;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}

/**
 * Authentication before the body, on every service's own port: a request to a route that
 * needs a token has it verified in Fastify's `onRequest` hook, from its headers, before any
 * byte of its body is read or parsed. A refusal closes the connection: the rest of the body
 * is never parsed, only drained for a moment so the caller can read the answer
 * (closeAfterAnswer). The guard then checks permissions with the principal found here.
 */
@Injectable()
export class AuthenticationBeforeBody implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(BearerTokenVerifier) private readonly verifier: BearerTokenVerifier,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'fastify') return;
    const routes = protectedRoutes(this.discovery, this.scanner, this.reflector);
    const fastify = adapter.getInstance<FastifyInstance>();
    // Route patterns and methods are finite: each pair is judged once.
    const decided = new Map<string, boolean>();
    const needsToken = (method: string, route: string): boolean => {
      const key = `${method} ${route}`;
      let needs = decided.get(key);
      if (needs === undefined) {
        const path = routePath(route);
        needs = routes.has(`${method} ${path}`) || routes.has(`ALL ${path}`);
        decided.set(key, needs);
      }
      return needs;
    };
    fastify.addHook('onRequest', (request, reply, done) => {
      const route = routeUrl(request);
      if (route === undefined) return done();
      if (!needsToken(request.method === 'HEAD' ? 'GET' : request.method, route)) return done();
      const known = this.verifier.knownPrincipal(request);
      if (known) {
        attachPrincipal(request, known);
        return done();
      }
      this.verifier.authenticate(request).then(
        (principal) => {
          attachPrincipal(request, principal);
          done();
        },
        (error: unknown) => {
          // Answered here: the hook chain stops (done is not called).
          try {
            if (hasBody(request)) closeAfterAnswer(request, reply);
            replyWithProblem(request, reply, error);
          } catch (failure) {
            done(failure as Error);
          }
        },
      );
    });
  }
}
