import { ProblemError } from '@comanda/http';
import {
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import type { Principal } from '../principal';
import { MissingTokenError, InvalidTokenError } from '../security.errors';
import { issuerOf, type SecuritySettings } from '../security-settings';
import { IssuerKeys, UnknownTenantError } from './issuer-keys';
import type { JwksSource } from './jwks-source';
import {
  ALLOWED_ALGORITHMS,
  isAccessTokenType,
  TENANT_ID_PATTERN,
  type AccessTokenClaims,
} from './token-claims';
import { VerifiedTokenCache } from './verified-token-cache';

interface IncomingRequest {
  headers: Record<string, string | string[] | undefined>;
}

/** A reason the token was refused, shown to the caller in `error_description`. */
class TokenRejection extends Error {}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_PREFIX = 'Bearer ';
const CLOCK_TOLERANCE_SECONDS = 5;
const JWKS_TIMEOUT_MS = 5000;
/** Issuers (tenants) whose keys are kept at most; beyond it the oldest is dropped (and refetches later). */
const MAX_ISSUERS = 1000;
/** Verified tokens kept at most (a few hundred bytes each). */
const VERIFIED_TOKENS = 10_000;

export interface BearerTokenVerifierOptions {
  /** The clock of the key cool-down and of the verified-token cache (tests move it). */
  now?: () => number;
}

/**
 * Verifies `Authorization: Bearer` access tokens (RFC 9068) against the issuer's JWKS, with
 * `jose`. A token's signature and claims are checked once; the principal is then served from
 * a bounded cache keyed by the token until its `exp` (ADR 0017). Each issuer's public keys
 * are imported once per `kid`; an unknown `kid` refetches the issuer's key set at most once
 * per cool-down (`60 s / jwksRequestsPerMinute`) and is otherwise refused from memory, so
 * forged kids can neither cost a network call per token nor lock the real keys out.
 */
export class BearerTokenVerifier {
  private readonly issuers = new Map<string, IssuerKeys>();
  private readonly verified: VerifiedTokenCache;
  private readonly now: () => number;
  private readonly cooldownMs: number;

  constructor(
    private readonly settings: SecuritySettings,
    private readonly findSource: () => JwksSource | undefined = () => undefined,
    options: BearerTokenVerifierOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.verified = new VerifiedTokenCache(VERIFIED_TOKENS, this.now);
    this.cooldownMs = Math.ceil(60_000 / settings.jwksRequestsPerMinute);
  }

  /** The caller of the request, or a 401 problem per RFC 6750 §3 (503 when keys are unreachable). */
  authenticate(request: IncomingRequest, _response?: unknown): Promise<Principal> {
    const token = bearerToken(request);
    if (token === null) return Promise.reject(new MissingTokenError());
    return this.verify(token);
  }

  /**
   * The caller of the request when its token was verified before and has not expired: the
   * request path then needs no promise. Undefined means "call `authenticate`".
   */
  knownPrincipal(request: IncomingRequest): Principal | undefined {
    const header = request.headers.authorization;
    if (typeof header !== 'string') return undefined;
    // The usual form, `Bearer <token>`, without the pattern: only a verified token is ever
    // found, and the pattern would have taken the same one out of this header. Any other form
    // (another case, more spaces) through the pattern.
    const token = header.startsWith(BEARER_PREFIX)
      ? header.slice(BEARER_PREFIX.length)
      : bearerTokenOf(header);
    return token === null ? undefined : this.verified.get(token);
  }

  /** The principal of a compact access token, or the problem refusing it. */
  async verify(token: string): Promise<Principal> {
    const cached = this.verified.get(token);
    if (cached) return cached;
    try {
      const { principal, exp } = await this.verifyOnce(token);
      this.verified.set(token, principal, exp);
      return principal;
    } catch (error) {
      if (error instanceof ProblemError) throw error;
      if (error instanceof TokenRejection) throw new InvalidTokenError(error.message);
      throw new InvalidTokenError(describeJoseError(error));
    }
  }

  private async verifyOnce(token: string): Promise<{ principal: Principal; exp: number }> {
    let header: ProtectedHeaderParameters;
    let tenantId: unknown;
    try {
      header = decodeProtectedHeader(token);
      tenantId = unverifiedTenant(token);
    } catch {
      throw new TokenRejection('the token is not a well-formed JWT');
    }
    if (!isAccessTokenType(header.typ)) {
      throw new TokenRejection('the token type (typ) must be at+jwt');
    }
    if (!ALLOWED_ALGORITHMS.includes(header.alg as (typeof ALLOWED_ALGORITHMS)[number])) {
      throw new TokenRejection(`the algorithm ${String(header.alg)} is not accepted`);
    }
    if (typeof header.kid !== 'string' || header.kid === '') {
      throw new TokenRejection('the token names no signing key (kid)');
    }
    if (typeof tenantId !== 'string' || !TENANT_ID_PATTERN.test(tenantId)) {
      throw new TokenRejection('the token names no valid tenant (tid)');
    }

    const found = await this.keysOf(tenantId).lookup(header.kid);
    if ('miss' in found) {
      if (found.miss === 'unavailable') throw keysUnavailable(found.detail);
      if (found.miss === 'unknown_tenant') {
        throw new TokenRejection('the token names a tenant (tid) its issuer does not know');
      }
      throw new TokenRejection('the signing key (kid) is unknown');
    }
    if (found.alg !== header.alg) {
      throw new TokenRejection(`the algorithm ${header.alg} does not match the signing key`);
    }
    const { payload } = await jwtVerify(token, found.key, {
      algorithms: [found.alg],
      audience: this.settings.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    const principal = this.principalFrom(payload);
    return { principal, exp: payload.exp as number };
  }

  private keysOf(tenantId: string): IssuerKeys {
    let keys = this.issuers.get(tenantId);
    if (keys) {
      // Most recently used last: what is evicted is what has not been used for longest.
      this.issuers.delete(tenantId);
      this.issuers.set(tenantId, keys);
    } else {
      const source = this.findSource();
      const uri = `${this.settings.authUrl}/auth/${tenantId}/.well-known/jwks.json`;
      keys = new IssuerKeys({
        fetch: source ? () => source.jwks(tenantId) : () => fetchJwks(uri),
        cooldownMs: this.cooldownMs,
        now: this.now,
      });
      if (this.issuers.size >= MAX_ISSUERS) this.evictOne();
      this.issuers.set(tenantId, keys);
    }
    return keys;
  }

  /**
   * Makes room for one issuer: the least recently used one without keys (forged tenant ids
   * land there), else the least recently used one. Forged tids cannot push out real tenants.
   */
  private evictOne(): void {
    let victim: string | undefined;
    for (const [tenantId, keys] of this.issuers) {
      victim ??= tenantId;
      if (!keys.hasKeys()) {
        victim = tenantId;
        break;
      }
    }
    if (victim !== undefined) this.issuers.delete(victim);
  }

  private principalFrom(payload: JWTPayload): Principal {
    const claims = payload as Partial<AccessTokenClaims>;
    if (typeof claims.tid !== 'string') throw new TokenRejection('the token names no tenant (tid)');
    if (claims.iss !== issuerOf(this.settings.publicUrl, claims.tid)) {
      throw new TokenRejection('the token was not issued by the issuer of its tenant');
    }
    if (typeof claims.exp !== 'number') throw new TokenRejection('the token has no expiry (exp)');
    if (claims.env !== this.settings.environment) {
      throw new TokenRejection(
        `the token is not valid in the ${this.settings.environment} environment`,
      );
    }
    if (
      typeof claims.client_id !== 'string' ||
      claims.sub !== claims.client_id ||
      typeof claims.jti !== 'string' ||
      typeof claims.scope !== 'string'
    ) {
      throw new TokenRejection('the token lacks client_id, sub, jti or scope');
    }
    const scopes = new Set(claims.scope.split(' ').filter((scope) => scope !== ''));
    return Object.freeze({
      clientId: claims.client_id,
      tenantId: claims.tid,
      environment: claims.env,
      scopes,
      personalData: scopes.has('personal-data:read'),
      tokenId: claims.jti,
    });
  }
}

/** `tid` of the unverified payload: only to pick whose keys verify the signature. */
function unverifiedTenant(token: string): unknown {
  const payload = token.split('.')[1];
  if (payload === undefined) throw new Error('not a JWS');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  if (typeof claims !== 'object' || claims === null) throw new Error('not a JWT');
  return Object.hasOwn(claims, 'tid') ? (claims as { tid: unknown }).tid : undefined;
}

async function fetchJwks(uri: string): Promise<JSONWebKeySet> {
  const response = await fetch(uri, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
  });
  if (response.status === 404) {
    await response.body?.cancel();
    throw new UnknownTenantError(`no key set at ${uri}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`the key set at ${uri} answered ${response.status}`);
  }
  return (await response.json()) as JSONWebKeySet;
}

function bearerToken(request: IncomingRequest): string | null {
  const header = request.headers.authorization;
  return typeof header === 'string' ? bearerTokenOf(header) : null;
}

function bearerTokenOf(header: string): string | null {
  return BEARER.exec(header.trim())?.[1] ?? null;
}

function keysUnavailable(detail: string | undefined): ProblemError {
  return new ProblemError({
    status: 503,
    code: 'auth.keys_unavailable',
    title: 'Signing keys unavailable',
    detail: 'The access token could not be checked right now; retry shortly.',
    headers: { 'Retry-After': '5' },
    cause: new Error(detail ?? 'the key set could not be fetched'),
  });
}

/** jose's refusals, said for the caller. */
function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token is not meant for this API (aud)';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    if (error.claim === 'iat') return 'the token was issued in the future (iat)';
    return `the token claim ${error.claim} is not valid`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return 'the token signature is not valid';
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token algorithm is not accepted';
  return 'the access token is not valid';
}
