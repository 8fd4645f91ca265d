import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { replyWithProblem, routeUrl } from '@comanda/http';
import { BearerTokenVerifier, holds, InsufficientScopeError } from '@comanda/security';

/** Operational endpoints of the gateway: they describe the deployment, not the API. */
const OPS_PATHS = new Set(['/metrics', '/health/upstreams']);

/**
 * The gateway's port is the public one: its `/metrics` and `/health/upstreams` answer only a
 * `platform:admin` token there. Liveness and readiness (`/health/live`, `/health/ready`) stay
 * open for load balancers; each service's own (internal) port serves its metrics as before.
 */
@Injectable()
export class OpsAccess implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly verifier: BearerTokenVerifier,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Synchronous for every other route: an async hook costs each request of the API its
    // promises (issue 10).
    fastify.addHook('onRequest', (request, reply, done) => {
      // The route the router matched, not the URL as sent: `/%6detrics`, `/metrics/` and
      // other spellings reach the same handler.
      const route = routeUrl(request);
      if (route === undefined || !OPS_PATHS.has(route)) return done();
      const refuse = (error: unknown) => {
        // Answered here: the hook chain stops (done is not called).
        try {
          replyWithProblem(request, reply, error);
        } catch (failure) {
          done(failure as Error);
        }
      };
      this.verifier.authenticate(request, undefined).then((principal) => {
        if (holds(principal, 'platform:admin')) return done();
        refuse(new InsufficientScopeError(['platform:admin']));
      }, refuse);
    });
  }
}
