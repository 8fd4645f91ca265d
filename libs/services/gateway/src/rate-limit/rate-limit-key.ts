import type { FastifyRequest } from 'fastify';
import type { Principal } from '@comanda/security';

const keys = new WeakMap<FastifyRequest, string>();

/**
 * The rate-limit bucket of a request, chosen by the gate before it asks the limiter: the
 * verified client (tenant and `client_id` of a token whose signature the gateway checked),
 * else the caller's address. Never an unverified claim: a forged token would otherwise get
 * a fresh budget per forged value, or spend a victim's.
 */
export function assignRateLimitKey(
  request: FastifyRequest,
  principal: Principal | undefined,
  address: string,
): void {
  keys.set(
    request,
    principal ? `client:${principal.tenantId}:${principal.clientId}` : `ip:${address}`,
  );
}

export function rateLimitKey(request: FastifyRequest): string {
  return keys.get(request) ?? `ip:${request.ip}`;
}
