import type { JSONWebKeySet } from 'jose';

/**
 * Where the public signing keys come from when not over HTTP. The auth service provides one
 * under `JWKS_SOURCE` (it cannot fetch its own JWKS before it listens); every other service
 * fetches `${AUTH_URL}/auth/${tid}/.well-known/jwks.json`.
 */
export interface JwksSource {
  jwks(tenantId: string): Promise<JSONWebKeySet>;
}

export const JWKS_SOURCE = Symbol('comanda.security.JWKS_SOURCE');
