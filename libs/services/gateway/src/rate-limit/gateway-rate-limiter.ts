import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GatewayConfig } from '../config/gateway.config';
import { RateLimitedError } from '../gateway.errors';

/** What a fixed window of @fastify/rate-limit's in-memory store says after a request. */
interface WindowCount {
  current: number;
  /** Milliseconds left in the window. */
  ttl: number;
}

interface RateLimitStore {
  incr(
    key: string,
    callback: (error: Error | null, count: WindowCount) => void,
    timeWindow: number,
    max: number,
  ): void;
}

// The store of @fastify/rate-limit (a fixed window per key in a bounded LRU, 5,000 keys), as
// its plugin keeps it; the package is pinned exactly and has no `exports` map.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding?: boolean,
  exponentialBackoff?: boolean,
) => RateLimitStore;

/**
 * Per-client request budget over a fixed window, counted in memory by @fastify/rate-limit's
 * own store. The gate asks it for every request it sees (health and docs routes are never
 * limited), synchronously: the plugin's request hook wraps this same synchronous count in
 * four promises per request, which the gateway's hot path does not pay (issue 10). Every
 * answer carries the plugin's `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset` headers; a spent budget is a 429 problem with `Retry-After`.
 */
@Injectable()
export class GatewayRateLimiter {
  private readonly store: RateLimitStore = new LocalStore(false, false);
  private readonly max: number;
  private readonly windowMs: number;

  constructor(config: GatewayConfig) {
    this.max = config.GATEWAY_RATE_LIMIT_MAX;
    this.windowMs = config.GATEWAY_RATE_LIMIT_WINDOW_MS;
  }

  /** Counts one request of `key`; throws RateLimitedError when its budget is spent. */
  admit(key: string, reply: FastifyReply): void {
    let count: WindowCount | undefined;
    this.store.incr(
      key,
      (error, counted) => (count = error ? undefined : counted),
      this.windowMs,
      this.max,
    );
    // LocalStore answers at once, within the call; a request it did not count is not let
    // through unlimited (the plugin answered 500 then too).
    if (!count) throw new Error('the rate-limit store did not count the request');
    const resetSeconds = Math.ceil(count.ttl / 1000);
    const exceeded = count.current > this.max;
    reply.header('x-ratelimit-limit', this.max);
    reply.header('x-ratelimit-remaining', exceeded ? 0 : this.max - count.current);
    reply.header('x-ratelimit-reset', resetSeconds);
    if (exceeded) throw new RateLimitedError(Math.max(1, resetSeconds));
  }
}
