import type { Principal } from '@comanda/security';

/**
 * The rate-limit bucket of a request, chosen by the gate before it asks the limiter: the
 * verified client (tenant and `client_id` of a token whose signature the gateway checked),
 * else the caller's address. Never an unverified claim: a forged token would otherwise get
 * a fresh budget per forged value, or spend a victim's.
 */
export function rateLimitKey(principal: Principal | undefined, address: string): string {
  return principal ? `client:${principal.tenantId}:${principal.clientId}` : `ip:${address}`;
}
