import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  API_VERSION_HEADER,
  ApiVersionMissingError,
  ApiVersionUnsupportedError,
  SUPPORTED_API_VERSION,
} from '@comanda/http';
import { GatewayConfig } from '../config/gateway.config';
import {
  BodyTooLargeError,
  InvalidAuthorizationSchemeError,
  InvalidPathError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from '../gateway.errors';
import { GatewayRateLimiter } from '../rate-limit/gateway-rate-limiter';
import {
  acceptedMediaType,
  allowsBasicAuth,
  bodyLimitFor,
  hasDotSegment,
  isVersionExempt,
  mediaTypeOf,
} from '../routing/request-policy';
import { owningUpstream } from '../routing/route-table';
import { UpstreamPools, type Upstream } from './upstream-pools';

export interface AdmittedRequest {
  upstream: Upstream;
  /** The body may not exceed this many bytes, whatever Content-Length says. */
  bodyLimitBytes: number;
  hasBody: boolean;
}

/**
 * The checks the gateway makes before it forwards anything. Each failure is a problem the
 * caller can act on; the upstream services verify tokens, permissions and bodies themselves.
 */
@Injectable()
export class RequestGate {
  constructor(
    private readonly config: GatewayConfig,
    private readonly pools: UpstreamPools,
    private readonly rateLimiter: GatewayRateLimiter,
  ) {}

  async admit(request: FastifyRequest, reply: FastifyReply): Promise<AdmittedRequest> {
    const path = request.url.split('?')[0];
    const method = request.method.toUpperCase();

    // First, so that a flood of bad requests is limited as well.
    await this.rateLimiter.admit(request, reply);

    if (hasDotSegment(path)) throw new InvalidPathError();
    const upstreamName = owningUpstream(path);
    const upstream = upstreamName && this.pools.get(upstreamName);
    if (!upstream) throw new RouteNotFoundError(method, path);

    if (!isVersionExempt(path)) checkApiVersion(request.headers[API_VERSION_HEADER]);

    const authorization = request.headers.authorization;
    if (
      authorization !== undefined &&
      !/^Bearer(?:\s|$)/i.test(authorization) &&
      !allowsBasicAuth(path)
    ) {
      throw new InvalidAuthorizationSchemeError();
    }

    const hasBody = requestHasBody(request);
    const bodyLimitBytes = bodyLimitFor(method, path, {
      defaultBytes: this.config.GATEWAY_BODY_LIMIT_BYTES,
      pluginCodeBytes: this.config.GATEWAY_PLUGIN_CODE_LIMIT_BYTES,
    });
    if (hasBody) {
      const accepted = acceptedMediaType(method, path);
      const received = mediaTypeOf(request.headers['content-type']);
      if (received !== accepted) throw new UnsupportedMediaTypeError(received, accepted);
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > bodyLimitBytes)
        throw new BodyTooLargeError(bodyLimitBytes);
    }
    return { upstream, bodyLimitBytes, hasBody };
  }
}

function checkApiVersion(value: string | string[] | undefined): void {
  if (value === undefined || value === '') throw new ApiVersionMissingError();
  const version = Array.isArray(value) ? value.join(',') : value.trim();
  if (version !== SUPPORTED_API_VERSION) throw new ApiVersionUnsupportedError(version);
}

function requestHasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}
