import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { throwError, type Observable } from 'rxjs';
import { REQUEST_ID_HEADER } from '../request/request-id';
import { exceptionToProblem } from './exception-to-problem';
import { PROBLEM_CONTENT_TYPE, problemTypeUri, type ProblemDetails } from './problem-details';

/** The one place where any error of an HTTP request becomes `application/problem+json`. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger: Logger;

  constructor(serviceName: string) {
    this.logger = new Logger(`${serviceName}.http`);
  }

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() !== 'http') {
      // Message handlers have their own retry and dead-letter path: leave their errors alone.
      return throwError(() => exception);
    }
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { problem, unexpected } = exceptionToProblem(exception, request);

    if (unexpected) {
      this.logger.error(
        { err: exception, requestId: request.id, method: request.method, url: request.url },
        'Request failed with an unexpected error',
      );
    }
    if (reply.sent) return;

    const body: ProblemDetails = {
      type: problemTypeUri(problem.code),
      title: problem.title,
      status: problem.status,
      detail: problem.detail ?? problem.title,
      code: problem.code,
      requestId: request.id,
      ...(problem.errors ? { errors: problem.errors } : {}),
    };
    void reply
      .status(problem.status)
      .headers(problem.headers)
      .header(REQUEST_ID_HEADER, request.id)
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(body));
  }
}
