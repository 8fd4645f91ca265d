import { Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { childTraceparent } from '@comanda/context';
import { answerWithProblem } from '@comanda/http';
import { localRequestHandler } from '@comanda/runtime';
import { GatewayConfig } from '../config/gateway.config';
import { UpstreamTimeoutError } from '../gateway.errors';
import {
  endToEndHeaders,
  headerValue,
  isHopByHop,
  upstreamRequestHeaders,
} from './forwarded-headers';
import type { AdmittedRequest } from './request-gate';

/**
 * Standalone (ADR 0036): an admitted request whose upstream is a service of this process is
 * served by that service's own Fastify instance on the gateway's request and response, with
 * the headers a forwarded request carries (X-Forwarded-*, request id, trace context, no
 * hop-by-hop header). No second HTTP exchange is made: the service parses the body, applies
 * its own limits, verifies the token and runs every hook, guard and pipe as for any caller.
 * The gateway keeps what it answers for on the way back: its own headers (request id, rate
 * limit), end-to-end response headers only, and 504 when no answer starts in time.
 */
@Injectable()
export class LocalHandOff {
  private readonly logger = new Logger('gateway.http');
  private readonly enabled: boolean;
  private readonly timeoutMs: number;

  constructor(config: GatewayConfig) {
    this.enabled = config.GATEWAY_IN_PROCESS_UPSTREAMS === 'true';
    this.timeoutMs = config.GATEWAY_UPSTREAM_TIMEOUT_MS;
  }

  /** True when a service of this process took the request; false: forward it over HTTP. */
  serve(request: FastifyRequest, reply: FastifyReply, admitted: AdmittedRequest): boolean {
    if (!this.enabled) return false;
    // A body of unannounced length streams through the gateway's own limiter (ProxyService);
    // an announced one was checked against the limit and cannot exceed its Content-Length.
    if (admitted.hasBody && request.headers['content-length'] === undefined) return false;
    const { upstream } = admitted;
    const handler = localRequestHandler(upstream.origin);
    if (!handler) return false;

    const raw = request.raw;
    const response = reply.raw;
    const headers: IncomingHttpHeaders = upstreamRequestHeaders(request.headers, {
      requestId: request.id,
      traceparent: childTraceparent(headerValue(request.headers.traceparent)),
      clientIp: admitted.clientAddress,
      protocol: request.protocol,
    });
    headers.host = upstream.host;
    // The gateway's own answer headers (request id, rate limit) go out with the service's.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) response.setHeader(name, value);
    }
    keepEndToEndHeadersOnly(response);
    this.answerTimeoutAfter(request, reply, upstream.name);
    reply.hijack();
    raw.headers = headers;
    handler(raw, response);
    return true;
  }

  /**
   * As the pool's headers timeout: no answer begun in time is a 504 problem. While the request
   * body is still arriving the clock starts over: a body that stops arriving is the server's
   * request timeout to answer (408), as over HTTP, never both.
   */
  private answerTimeoutAfter(request: FastifyRequest, reply: FastifyReply, upstream: string) {
    const expire = () => {
      // An answer under way is the service's to finish.
      if (reply.raw.headersSent) return;
      if (!request.raw.complete) {
        timer = setTimeout(expire, this.timeoutMs).unref();
        return;
      }
      const error = new UpstreamTimeoutError(upstream, undefined);
      answerWithProblem(request, reply, error, this.logger);
    };
    let timer = setTimeout(expire, this.timeoutMs).unref();
    reply.raw.once('close', () => clearTimeout(timer));
  }
}

/**
 * The response's hop-by-hop headers (and those its Connection header names) are dropped as
 * the response head is written, as the gateway drops them from an upstream's HTTP answer;
 * the gateway's own server then adds its own Connection and Keep-Alive.
 */
function keepEndToEndHeadersOnly(response: ServerResponse): void {
  const writeHead = response.writeHead;
  response.writeHead = function writeEndToEndHead(
    this: ServerResponse,
    statusCode: number,
    ...rest: unknown[]
  ) {
    const last = rest[rest.length - 1];
    const given =
      typeof last === 'object' && last !== null && !Array.isArray(last)
        ? (last as OutgoingHttpHeaders)
        : undefined;
    // Most answers carry no hop-by-hop header at all: they go out as they are.
    if (!needsFiltering(this, given)) {
      return (writeHead as (...args: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
    }
    const all: Record<string, string | string[] | undefined> = {};
    for (const name of this.getHeaderNames()) all[name] = headerText(this.getHeader(name));
    for (const [name, value] of Object.entries(given ?? {}))
      all[name.toLowerCase()] = headerText(value);
    const kept = endToEndHeaders(all);
    for (const name of this.getHeaderNames()) if (!(name in kept)) this.removeHeader(name);
    const args = given ? [...rest.slice(0, -1), kept] : rest;
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, statusCode, ...args);
  } as ServerResponse['writeHead'];
}

/** True when the answer has a hop-by-hop header (Connection included) or an unset one to drop. */
function needsFiltering(response: ServerResponse, given: OutgoingHttpHeaders | undefined): boolean {
  for (const name of response.getHeaderNames()) if (isHopByHop(name)) return true;
  for (const name in given) {
    if (given[name] === undefined || isHopByHop(name.toLowerCase())) return true;
  }
  return false;
}

function headerText(value: number | string | string[] | undefined): string | string[] | undefined {
  return typeof value === 'number' ? String(value) : value;
}
