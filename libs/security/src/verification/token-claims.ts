/** The access token claims of RFC 9068 plus Comanda's `tid` and `env`. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  nbf?: number;
  jti: string;
  client_id: string;
  /** Space-separated granted scopes. */
  scope: string;
  tid: string;
  env: 'test' | 'production';
}

/** RFC 9068 §2.1: `at+jwt`; the full media type is accepted as well. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const ALLOWED_ALGORITHMS = ['ES256', 'RS256'] as const;

/** Tenant ids are slugs; checked before one is put into a JWKS URL. */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isAccessTokenType(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const value = typ.toLowerCase();
  return value === ACCESS_TOKEN_TYPE || value === `application/${ACCESS_TOKEN_TYPE}`;
}
