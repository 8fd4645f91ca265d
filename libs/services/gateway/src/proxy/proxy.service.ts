import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, type Dispatcher } from 'undici';
import { childTraceparent } from '@comanda/context';
import {
  closeAfterAnswer,
  guardedStream,
  markUpstreamAnswer,
  REQUEST_ID_HEADER,
} from '@comanda/http';
import { RuntimeConfig } from '@comanda/runtime';
import { UpstreamTimeoutError, UpstreamUnavailableError } from '../gateway.errors';
import { BodyLimitStream } from './body-limit.stream';
import { endToEndHeaders, headerValue, upstreamRequestHeaders } from './forwarded-headers';
import type { AdmittedRequest } from './request-gate';

const NO_BODY_STATUSES = new Set([204, 205, 304]);

/** Why a request still waiting for its upstream was given up: this gateway is stopping. */
class GatewayStopping extends Error {}

/** How long before the shutdown deadline the requests still waiting are answered. */
const STOPPING_MARGIN_MS = 1000;

/**
 * Forwards one admitted request to its upstream over the pool's keep-alive connections:
 * the body streams through unparsed (counted against the limit), the response streams
 * back with its status and end-to-end headers.
 *
 * On shutdown the gateway finishes what is in flight, but its upstream timeout can outlast
 * the shutdown's (SHUTDOWN_TIMEOUT_MS): a request still waiting for its upstream's answer
 * shortly before that deadline gets the 504 it would get at its own timeout, rather than a
 * connection closed without an answer when the process exits.
 */
@Injectable()
export class ProxyService implements BeforeApplicationShutdown {
  /** Requests sent upstream whose answer has not begun. */
  private readonly waiting = new Set<AbortController>();

  constructor(private readonly runtime: RuntimeConfig) {}

  beforeApplicationShutdown(): void {
    const giveUp = () => {
      for (const aborter of this.waiting) aborter.abort(new GatewayStopping());
    };
    const delay = this.runtime.SHUTDOWN_TIMEOUT_MS - STOPPING_MARGIN_MS;
    // Unref'd: a stop that finishes sooner does not wait for it.
    setTimeout(giveUp, Math.max(0, delay)).unref();
  }

  async forward(
    request: FastifyRequest,
    reply: FastifyReply,
    admitted: AdmittedRequest,
  ): Promise<void> {
    const { upstream } = admitted;
    const aborter = new AbortController();
    // The caller went away before the answer was complete: stop the upstream work too.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) aborter.abort();
    });

    let limiter: BodyLimitStream | undefined;
    if (admitted.hasBody) {
      limiter = streamBody(request, reply, admitted.bodyLimitBytes);
    }

    let response: Dispatcher.ResponseData;
    this.waiting.add(aborter);
    try {
      response = await upstream.pool.request({
        method: request.method as Dispatcher.HttpMethod,
        path: request.url,
        headers: upstreamRequestHeaders(request.headers, {
          requestId: request.id,
          traceparent: childTraceparent(headerValue(request.headers.traceparent)),
          clientIp: admitted.clientAddress,
          protocol: request.protocol,
        }),
        body: limiter ?? null,
        signal: aborter.signal,
      });
    } catch (error) {
      if (limiter?.exceeded) throw limiterError(limiter, error);
      if (error instanceof GatewayStopping) throw new UpstreamTimeoutError(upstream.name, error);
      throw upstreamError(upstream.name, error);
    } finally {
      this.waiting.delete(aborter);
    }

    reply.status(response.statusCode);
    markUpstreamAnswer(request);
    for (const [name, value] of Object.entries(endToEndHeaders(response.headers))) {
      reply.header(name, value);
    }
    reply.header(REQUEST_ID_HEADER, request.id);
    if (request.method === 'HEAD' || NO_BODY_STATUSES.has(response.statusCode)) {
      await response.body.dump();
      await reply.send();
      return;
    }
    await reply.send(guardedStream(response.body));
  }
}

/**
 * The request body as a stream counted against the limit. Past the limit the limiter fails
 * (undici then fails the upstream request with its error) and the rest of the body is read
 * and dropped rather than destroying the socket, so the caller still receives the 413.
 */
function streamBody(
  request: FastifyRequest,
  reply: FastifyReply,
  limitBytes: number,
): BodyLimitStream {
  const limiter = new BodyLimitStream(limitBytes);
  const source = request.raw;
  limiter.once('error', () => {
    source.unpipe(limiter);
    source.resume();
    closeAfterAnswer(request, reply);
  });
  source.once('aborted', () => limiter.destroy(new Error('the caller aborted the request body')));
  // `pipe` forwards no errors: a reset socket must fail the upstream request, not the process.
  source.on('error', (error) => limiter.destroy(error));
  source.pipe(limiter);
  return limiter;
}

function limiterError(limiter: BodyLimitStream, fallback: unknown): unknown {
  return limiter.errored ?? fallback;
}

function upstreamError(upstream: string, error: unknown): unknown {
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    error instanceof errors.BodyTimeoutError
  ) {
    return new UpstreamTimeoutError(upstream, error);
  }
  if (error instanceof errors.RequestAbortedError) return error;
  return new UpstreamUnavailableError(upstream, error);
}
