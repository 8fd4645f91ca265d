import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  allowedMethods,
  API_VERSION_HEADER,
  contentCodingRefusal,
  MethodNotAllowedError,
  ROUTED_METHODS,
  ApiVersionMissingError,
  ApiVersionUnsupportedError,
  SUPPORTED_API_VERSION,
  urlPath,
} from '@comanda/http';
import { SMALLER_SERVICE_BODY_LIMITS } from '@comanda/contracts';
import { BearerTokenVerifier, type Principal } from '@comanda/security';
import { GatewayConfig } from '../config/gateway.config';
import {
  BodyTooLargeError,
  DuplicateHeaderError,
  InvalidAuthorizationSchemeError,
  InvalidPathError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from '../gateway.errors';
import { GatewayRateLimiter } from '../rate-limit/gateway-rate-limiter';
import { rateLimitKey } from '../rate-limit/rate-limit-key';
import {
  acceptedMediaType,
  bodyLimitFor,
  type BodyLimits,
  hasDotSegment,
  isVersionExempt,
  mediaTypeOf,
  requiresBearer,
} from '../routing/request-policy';
import { owningUpstream } from '../routing/route-table';
import { clientAddress, parseTrustedProxies } from './client-address';
import { UpstreamPools, type Upstream } from './upstream-pools';

export interface AdmittedRequest {
  upstream: Upstream;
  /** The body may not exceed this many bytes, whatever Content-Length says. */
  bodyLimitBytes: number;
  hasBody: boolean;
  /** Who asked, as TRUSTED_PROXIES decides: appended to X-Forwarded-For for the upstream. */
  clientAddress: string;
}

/**
 * The checks the gateway makes before it forwards anything, all from the request's headers
 * (no body byte is read before they pass). Each failure is a problem the caller can act on.
 * Every request, admitted or not, counts once against a rate limit: its verified client's,
 * or its address's when it has no valid token.
 */
@Injectable()
export class RequestGate {
  private readonly trustedProxies: ReturnType<typeof parseTrustedProxies>;
  private readonly bodyLimits: BodyLimits;

  constructor(
    private readonly config: GatewayConfig,
    private readonly pools: UpstreamPools,
    private readonly rateLimiter: GatewayRateLimiter,
    private readonly verifier: BearerTokenVerifier,
  ) {
    this.trustedProxies = parseTrustedProxies(config.TRUSTED_PROXIES);
    this.bodyLimits = {
      defaultBytes: config.GATEWAY_BODY_LIMIT_BYTES,
      pluginCodeBytes: config.GATEWAY_PLUGIN_CODE_LIMIT_BYTES,
      serviceBytes: new Map([
        ...SMALLER_SERVICE_BODY_LIMITS,
        ['auth', config.GATEWAY_AUTH_BODY_LIMIT_BYTES],
      ]),
    };
  }

  /** The caller's address as rate limits count it (see TRUSTED_PROXIES). */
  addressOf(request: FastifyRequest): string {
    return clientAddress(
      request.raw.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      this.trustedProxies,
    );
  }

  /**
   * The request admitted, or the problem refusing it. Synchronous when nothing needs waiting
   * for (no token to verify, or one verified before): the gateway's hot path then makes no
   * promise of its own. Its refusal is thrown, or the promise rejects with it.
   */
  admit(request: FastifyRequest, reply: FastifyReply): AdmittedRequest | Promise<AdmittedRequest> {
    const address = this.addressOf(request);
    const path = urlPath(request.url);
    let upstream: Upstream;
    let principal: Principal | undefined;
    try {
      upstream = this.route(request, path);
      if (this.config.GATEWAY_VERIFY_TOKENS === 'true' && requiresBearer(path)) {
        principal = this.verifier.knownPrincipal(request);
        if (!principal)
          return this.verifier.authenticate(request, undefined).then(
            (verified) => this.settle(request, reply, path, address, verified, upstream),
            (error: unknown) => this.refuse(reply, address, undefined, error),
          );
      }
    } catch (error) {
      return this.refuse(reply, address, undefined, error);
    }
    return this.settle(request, reply, path, address, principal, upstream);
  }

  /** The checks of the body's headers, once the caller is known; every request is counted. */
  private settle(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    address: string,
    principal: Principal | undefined,
    upstream: Upstream,
  ): AdmittedRequest {
    let admitted: AdmittedRequest;
    try {
      admitted = this.checkBody(request, path, upstream, address);
    } catch (error) {
      return this.refuse(reply, address, principal, error);
    }
    this.rateLimiter.admit(rateLimitKey(principal, address), reply);
    return admitted;
  }

  /** A refused request counts against its caller's budget too; a spent budget answers first. */
  private refuse(
    reply: FastifyReply,
    address: string,
    principal: Principal | undefined,
    error: unknown,
  ): never {
    this.rateLimiter.admit(rateLimitKey(principal, address), reply);
    throw error;
  }

  /** The upstream owning the path, once the path and the headers that need no body pass. */
  private route(request: FastifyRequest, path: string): Upstream {
    if (hasDotSegment(path)) throw new InvalidPathError();
    const upstreamName = owningUpstream(path);
    const upstream = upstreamName && this.pools.get(upstreamName);
    if (!upstream) {
      // One of the gateway's own paths (`/docs`, `/health/...`) asked with another method.
      const method = request.method.toUpperCase();
      const allowed = allowedMethods(request.server, path);
      if (allowed.length > 0) throw new MethodNotAllowedError(method, path, allowed);
      throw new RouteNotFoundError(method, path);
    }

    if (!isVersionExempt(path)) checkApiVersion(request.headers[API_VERSION_HEADER]);
    checkSingletonHeaders(request.raw.rawHeaders);

    // Only where a bearer token is what authenticates: elsewhere the header says nothing to
    // us (a partner's client may send Basic credentials from its notifications URL; its
    // signature is what counts), and the token endpoint takes Basic client authentication.
    const authorization = request.headers.authorization;
    if (
      authorization !== undefined &&
      requiresBearer(path) &&
      !/^Bearer(?:\s|$)/i.test(authorization)
    ) {
      throw new InvalidAuthorizationSchemeError();
    }
    return upstream;
  }

  private checkBody(
    request: FastifyRequest,
    path: string,
    upstream: Upstream,
    address: string,
  ): AdmittedRequest {
    const method = request.method.toUpperCase();
    const hasBody = requestHasBody(request);
    const bodyLimitBytes = bodyLimitFor(method, path, this.bodyLimits, upstream.name);
    // A method no service routes (PROPFIND, SEARCH, ...) gets the service's 405 whatever its
    // body: its media type is not the gateway's to judge first.
    if (hasBody && ROUTED.has(method)) {
      const accepted = acceptedMediaType(method, path);
      const received = mediaTypeOf(request.headers['content-type']);
      if (received !== accepted) throw new UnsupportedMediaTypeError(received, accepted);
      const coded = contentCodingRefusal(request.headers['content-encoding']);
      if (coded) throw coded;
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > bodyLimitBytes)
        throw new BodyTooLargeError(bodyLimitBytes);
    }
    return { upstream, bodyLimitBytes, hasBody, clientAddress: address };
  }
}

const ROUTED = new Set<string>(ROUTED_METHODS);

/**
 * Headers that decide who asks and how the body reads, sent twice: Node's request keeps the
 * first and drops the others, while a proxy before us may have read the last. Refused
 * rather than guessed.
 */
const SINGLETON_HEADERS = ['authorization', 'content-type'];

function checkSingletonHeaders(rawHeaders: string[]): void {
  const seen: string[] = [];
  // Names at even indexes, values at odd ones.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const raw = rawHeaders[index];
    // Most names are neither: their length tells, without a lower-cased copy per request.
    if (raw.length !== 13 && raw.length !== 12) continue;
    const name = raw.toLowerCase();
    if (!SINGLETON_HEADERS.includes(name)) continue;
    if (seen.includes(name)) throw new DuplicateHeaderError(rawHeaders[index]);
    seen.push(name);
  }
}

function checkApiVersion(value: string | string[] | undefined): void {
  if (value === undefined || value === '') throw new ApiVersionMissingError();
  const version = Array.isArray(value) ? value.join(',') : value.trim();
  if (version !== SUPPORTED_API_VERSION) throw new ApiVersionUnsupportedError(version);
}

/** A body follows the headers: a non-zero Content-Length, or a chunked one. */
export function requestHasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}
