import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { replyWithProblem } from '@comanda/http';
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
    fastify.addHook('onRequest', async (request, reply) => {
      // The route the router matched, not the URL as sent: `/%6detrics`, `/metrics/` and
      // other spellings reach the same handler.
      const route = request.routeOptions.url;
      if (route === undefined || !OPS_PATHS.has(route)) return;
      try {
        const principal = await this.verifier.authenticate(request, undefined);
        if (!holds(principal, 'platform:admin')) {
          throw new InsufficientScopeError(['platform:admin']);
        }
      } catch (error) {
        return replyWithProblem(request, reply, error);
      }
    });
  }
}
