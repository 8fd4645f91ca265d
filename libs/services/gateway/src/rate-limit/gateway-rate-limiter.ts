import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayConfig } from '../config/gateway.config';
import { RateLimitedError } from '../gateway.errors';
import { rateLimitKey } from './rate-limit-key';

type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Per-client request budget over a fixed window, kept by @fastify/rate-limit in memory. The
 * limit is checked by the gateway handler rather than as a route hook, so that health and
 * docs routes are never limited and the 429 is a problem like every other answer.
 */
@Injectable()
export class GatewayRateLimiter implements OnModuleInit {
  private hook?: LimitHook;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: GatewayConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    await fastify.register(rateLimit, {
      global: false,
      max: this.config.GATEWAY_RATE_LIMIT_MAX,
      timeWindow: this.config.GATEWAY_RATE_LIMIT_WINDOW_MS,
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) =>
        new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
    this.hook = fastify.rateLimit() as LimitHook;
  }

  /** Throws RateLimitedError (429, `Retry-After`) when the caller's budget is spent. */
  async admit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!this.hook) throw new Error('GatewayRateLimiter used before the module initialised');
    await this.hook(request, reply);
  }
}
