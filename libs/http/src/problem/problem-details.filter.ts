import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentContext } from '@comanda/context';
import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { throwError, type Observable } from 'rxjs';
import { REQUEST_ID_HEADER } from '../request/request-id';
import { exceptionToProblem, type DomainProblems } from './exception-to-problem';
import { problemBody } from './problem-details';
import { logProblem, writeProblem } from './reply-with-problem';

/** The one place where any error of an HTTP request becomes `application/problem+json`. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger: Logger;

  constructor(
    serviceName: string,
    private readonly domainProblems?: DomainProblems,
  ) {
    this.logger = new Logger(`${serviceName}.http`);
  }

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() !== 'http') {
      // Message handlers have their own retry and dead-letter path: leave their errors alone.
      return throwError(() => exception);
    }
    const http = host.switchToHttp();
    // Thrown from Nest middleware, the request and response are Node's raw objects (middie
    // runs before Fastify wraps them); everywhere else they are Fastify's.
    const raw = isRawResponse(http.getResponse<FastifyReply | ServerResponse>());
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply | ServerResponse>();
    const requestId = requestIdOf(request);
    const mapped = exceptionToProblem(exception, request, this.domainProblems);
    const { problem } = mapped;
    logProblem(this.logger, request, requestId, exception, mapped);

    if (raw) {
      writeProblem(reply as ServerResponse, problem, requestId);
      return;
    }
    const fastifyReply = reply as FastifyReply;
    if (fastifyReply.sent) return;
    void fastifyReply
      .status(problem.status)
      .headers(problem.headers)
      .header(REQUEST_ID_HEADER, requestId)
      .header('content-type', problem.mediaType)
      .send(JSON.stringify(problemBody(problem, requestId)));
  }
}

function isRawResponse(response: FastifyReply | ServerResponse): response is ServerResponse {
  return typeof (response as FastifyReply).status !== 'function';
}

/** Fastify's request id, or on a raw request the one its request context carries. */
function requestIdOf(request: FastifyRequest | IncomingMessage): string {
  const id = (request as FastifyRequest).id;
  if (typeof id === 'string') return id;
  return currentContext()?.requestId ?? 'unknown';
}
