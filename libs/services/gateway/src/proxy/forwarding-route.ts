import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  answerWithProblem,
  closeAfterAnswer,
  isThenable,
  markForwarded,
  routeEveryMethod,
} from '@comanda/http';
import { LocalHandOff } from './local-hand-off';
import { ProxyService } from './proxy.service';
import { type AdmittedRequest, RequestGate, requestHasBody } from './request-gate';

/**
 * Every path the gateway does not serve itself, as one plain Fastify route: the request gate,
 * then the upstream (a service of this process on the gateway's own request and response,
 * ADR 0036, or over HTTP). No token is checked here beyond the gate's: the service behind
 * verifies every request. Outside Nest's pipeline on purpose (no guard, pipe or interceptor
 * has anything to do on a path the gateway does not own); errors become problems as the
 * global filter makes them, unexpected ones logged with their stack.
 */
@Injectable()
export class ForwardingRoute implements OnModuleInit {
  private readonly logger = new Logger('gateway.http');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly gate: RequestGate,
    private readonly handOff: LocalHandOff,
    private readonly proxy: ProxyService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // A service's path asked with a method it lacks (PROPFIND, SEARCH, PURGE, ...) reaches the
    // service, which answers 405 with the methods the path has, as for any other method.
    routeEveryMethod(fastify);
    fastify.all(
      '/*',
      {
        // Fastify's own refusals before the handler (a Content-Type header it cannot parse):
        // the route is registered before Nest sets its error handler, which a route takes
        // when registered, so it names the problem answer itself.
        errorHandler: (error, request, reply) => this.refuse(request, reply, error),
      },
      (request, reply) => this.forward(request, reply),
    );
  }

  /**
   * Synchronous while nothing needs waiting for (ADR 0036's hand-off of a request whose token
   * was verified before): Fastify then wraps no promise around the request.
   */
  private forward(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    let admitted: AdmittedRequest | Promise<AdmittedRequest>;
    try {
      admitted = this.gate.admit(request, reply);
    } catch (error) {
      this.refuse(request, reply, error);
      return;
    }
    if (isThenable(admitted))
      return admitted.then(
        (known) => this.dispatch(request, reply, known),
        (error: unknown) => this.refuse(request, reply, error),
      );
    return this.dispatch(request, reply, admitted);
  }

  /** To a service of this process, else over HTTP. */
  private dispatch(
    request: FastifyRequest,
    reply: FastifyReply,
    admitted: AdmittedRequest,
  ): Promise<void> | undefined {
    markForwarded(request, admitted.upstream.name);
    try {
      if (this.handOff.serve(request, reply, admitted)) return;
      return this.proxy
        .forward(request, reply, admitted)
        .catch((error: unknown) => this.failed(request, reply, error));
    } catch (error) {
      this.failed(request, reply, error);
      return;
    }
  }

  private failed(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
    // The caller went away: nobody to answer (its line says "request aborted"). Its
    // connection tells, not the request stream: Node destroys that one as soon as a body
    // has been read in full, and an upstream failure after it must still be answered.
    if (callerGone(request) && !reply.raw.writableFinished) return;
    answerWithProblem(request, reply, error, this.logger);
  }

  /** Refused from its headers: the body is never read, and the connection closes after it. */
  private refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
    if (requestHasBody(request)) closeAfterAnswer(request, reply);
    answerWithProblem(request, reply, error, this.logger);
  }
}

function callerGone(request: FastifyRequest): boolean {
  const socket = request.raw.socket as FastifyRequest['raw']['socket'] | null;
  return socket === null || socket.destroyed;
}
