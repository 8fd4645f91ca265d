import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { problemTypeUri, REQUEST_ID_HEADER } from '@comanda/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from './oauth.error';

/** RFC 6749 §5.2 body (what OAuth libraries read), with the problem fields beside it. */
@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(error: OAuthError, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply
      .status(error.status)
      .headers({ ...error.headers, 'cache-control': 'no-store', pragma: 'no-cache' })
      .header(REQUEST_ID_HEADER, request.id)
      .header('content-type', 'application/json; charset=utf-8')
      .send(
        JSON.stringify({
          error: error.error,
          error_description: error.description,
          type: problemTypeUri(`oauth.${error.error}`),
          title: error.error,
          status: error.status,
          detail: error.description,
          code: `oauth.${error.error}`,
          requestId: request.id,
        }),
      );
  }
}
