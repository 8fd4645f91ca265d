import { ProblemError } from '@comanda/http';
import {
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { passportJwtSecret } from 'jwks-rsa';
import passport from 'passport';
import { Strategy as JwtStrategy, type VerifiedCallback } from 'passport-jwt';
import type { Principal } from '../principal';
import { MissingTokenError, InvalidTokenError } from '../security.errors';
import { issuerOf, type SecuritySettings } from '../security-settings';
import type { JwksSource } from './jwks-source';
import {
  ALLOWED_ALGORITHMS,
  isAccessTokenType,
  TENANT_ID_PATTERN,
  type AccessTokenClaims,
} from './token-claims';

type KeyCallback = (error: unknown, key?: string | Buffer) => void;
type KeyProvider = (request: unknown, rawToken: string, done: KeyCallback) => void;

interface IncomingRequest {
  headers: Record<string, string | string[] | undefined>;
}

/** A reason the token was refused, shown to the caller in `error_description`. */
class TokenRejection extends Error {}

/** The keys could not be fetched: the caller is not at fault. */
class KeysUnavailable extends Error {}

/** The issuer answered 404 for the token's `tid`: no such tenant, so the token is forged. */
class UnknownTenant extends Error {}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;
const STRATEGY_NAME = 'comanda-bearer';
const CLOCK_TOLERANCE_SECONDS = 5;
const JWKS_TIMEOUT_MS = 5000;
/** Per-tenant JWKS clients kept at most; beyond it the oldest is dropped (and refetches later). */
const MAX_TENANT_CLIENTS = 1000;

/**
 * Verifies `Authorization: Bearer` access tokens with passport-jwt against the issuer's JWKS
 * (jwks-rsa: cached per `kid`, refetched on an unknown `kid` at most
 * `jwksRequestsPerMinute` times a minute per tenant).
 */
export class BearerTokenVerifier {
  /**
   * Passport augments the strategy it runs with the request's `success`/`fail`/`error`. Given a
   * strategy object it augments that shared object, so concurrent verifications overwrite each
   * other's callbacks (requests hang or get another caller's principal); given a registered
   * name it augments a fresh `Object.create(strategy)` per request. Our own authenticator, not
   * passport's global one, so that services running in one process cannot collide on the name.
   */
  private readonly passport = new passport.Authenticator();
  private readonly keyProviders = new Map<string, KeyProvider>();

  constructor(
    private readonly settings: SecuritySettings,
    private readonly findSource: () => JwksSource | undefined = () => undefined,
  ) {
    const strategy = new JwtStrategy(
      {
        jwtFromRequest: (request: IncomingRequest) => bearerToken(request),
        secretOrKeyProvider: (request, rawToken, done) => this.provideKey(request, rawToken, done),
        audience: settings.audience,
        algorithms: [...ALLOWED_ALGORITHMS],
        jsonWebTokenOptions: { complete: true, clockTolerance: CLOCK_TOLERANCE_SECONDS },
      },
      (
        decoded: { header: ProtectedHeaderParameters; payload: JWTPayload },
        done: VerifiedCallback,
      ) => {
        try {
          done(null, this.principalFrom(decoded.header, decoded.payload));
        } catch (error) {
          if (error instanceof TokenRejection) done(null, false, error);
          else done(error, false);
        }
      },
    );
    this.passport.use(STRATEGY_NAME, strategy);
  }

  /** The caller of the request, or a 401 problem per RFC 6750 §3. */
  authenticate(request: IncomingRequest, response: unknown): Promise<Principal> {
    if (bearerToken(request) === null) return Promise.reject(new MissingTokenError());
    return new Promise<Principal>((resolve, reject) => {
      const run = this.passport.authenticate(
        STRATEGY_NAME,
        { session: false },
        (error: unknown, principal: Principal | false, info: unknown) => {
          if (error) return reject(error);
          if (principal) return resolve(principal);
          reject(rejectionFor(info));
        },
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      run(request, response, (error) => reject(error ?? new InvalidTokenError('token refused')));
    });
  }

  private provideKey(request: unknown, rawToken: string, done: KeyCallback): void {
    let header: ProtectedHeaderParameters;
    let tenantId: unknown;
    try {
      header = decodeProtectedHeader(rawToken);
      tenantId = decodeJwt(rawToken).tid;
    } catch {
      return done(new TokenRejection('the token is not a well-formed JWT'));
    }
    if (!isAccessTokenType(header.typ)) {
      return done(new TokenRejection('the token type (typ) must be at+jwt'));
    }
    if (!ALLOWED_ALGORITHMS.includes(header.alg as (typeof ALLOWED_ALGORITHMS)[number])) {
      return done(new TokenRejection(`the algorithm ${String(header.alg)} is not accepted`));
    }
    if (typeof header.kid !== 'string' || header.kid === '') {
      return done(new TokenRejection('the token names no signing key (kid)'));
    }
    if (typeof tenantId !== 'string' || !TENANT_ID_PATTERN.test(tenantId)) {
      return done(new TokenRejection('the token names no valid tenant (tid)'));
    }
    this.keyProviderFor(tenantId)(request, rawToken, done);
  }

  private keyProviderFor(tenantId: string): KeyProvider {
    let provider = this.keyProviders.get(tenantId);
    if (!provider) {
      const source = this.findSource();
      provider = passportJwtSecret({
        jwksUri: `${this.settings.authUrl}/auth/${tenantId}/.well-known/jwks.json`,
        cache: true,
        rateLimit: true,
        jwksRequestsPerMinute: this.settings.jwksRequestsPerMinute,
        // Our own fetch rather than jwks-rsa's, which reports every non-2xx alike: a 404
        // (unknown tenant) is the caller's fault, an unreachable issuer is not.
        fetcher: source ? () => source.jwks(tenantId) : fetchJwks,
        handleSigningKeyError: (error, cb) => {
          if (error instanceof UnknownTenant) {
            return cb(
              new TokenRejection('the token names a tenant (tid) its issuer does not know'),
            );
          }
          if (error?.name === 'SigningKeyNotFoundError') {
            return cb(new TokenRejection('the signing key (kid) is unknown'));
          }
          if (error?.name === 'JwksRateLimitError') {
            return cb(new TokenRejection('the signing key (kid) is unknown'));
          }
          cb(error ? new KeysUnavailable(error.message) : null);
        },
      }) as KeyProvider;
      if (this.keyProviders.size >= MAX_TENANT_CLIENTS) {
        const oldest = this.keyProviders.keys().next().value;
        if (oldest !== undefined) this.keyProviders.delete(oldest);
      }
      this.keyProviders.set(tenantId, provider);
    }
    return provider;
  }

  private principalFrom(header: ProtectedHeaderParameters, payload: JWTPayload): Principal {
    if (!isAccessTokenType(header.typ))
      throw new TokenRejection('the token type (typ) must be at+jwt');
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
    return {
      clientId: claims.client_id,
      tenantId: claims.tid,
      environment: claims.env,
      scopes,
      personalData: scopes.has('personal-data:read'),
      tokenId: claims.jti,
    };
  }
}

async function fetchJwks(uri: string): Promise<JSONWebKeySet> {
  const response = await fetch(uri, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
  });
  if (response.status === 404) {
    await response.body?.cancel();
    throw new UnknownTenant(`no key set at ${uri}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`the key set at ${uri} answered ${response.status}`);
  }
  return (await response.json()) as JSONWebKeySet;
}

function bearerToken(request: IncomingRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return BEARER.exec(header.trim())?.[1] ?? null;
}

function rejectionFor(info: unknown): ProblemError {
  if (info instanceof KeysUnavailable) {
    return new ProblemError({
      status: 503,
      code: 'auth.keys_unavailable',
      title: 'Signing keys unavailable',
      detail: 'The access token could not be checked right now; retry shortly.',
      headers: { 'Retry-After': '5' },
      cause: info,
    });
  }
  if (info instanceof TokenRejection) return new InvalidTokenError(info.message);
  if (info instanceof Error) return new InvalidTokenError(describeJwtError(info));
  return new InvalidTokenError('the access token is not valid');
}

/** jsonwebtoken's messages, said for the caller. */
function describeJwtError(error: Error): string {
  switch (error.name) {
    case 'TokenExpiredError':
      return 'the token has expired';
    case 'NotBeforeError':
      return 'the token is not valid yet';
    default:
      if (/audience/.test(error.message)) return 'the token is not meant for this API (aud)';
      if (/signature/.test(error.message)) return 'the token signature is not valid';
      if (/algorithm/.test(error.message)) return 'the token algorithm is not accepted';
      return 'the access token is not valid';
  }
}
