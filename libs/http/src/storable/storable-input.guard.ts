import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { httpRequestOf } from '../nest/http-request-of';
import { RequestValidationError } from '../validation/request-validation.error';
import { RefusedBody, takesRefusedBody } from '../fastify/refused-body';
import { isStorable, unstorableText } from './storable-text';

/**
 * Refuses input the database cannot store before the validation pipe and the handler see
 * it. A guard because guards run ahead of every pipe, the global validation pipe too, after
 * the global access guard (so an unauthenticated caller still gets 401 first); an interceptor
 * would do the same at the price of an rxjs chain per request. Services attach it to the
 * controllers whose input reaches PostgreSQL as text or jsonb
 * (`@UseGuards(StorableInputGuard)`); the OAuth endpoints keep their own checks because RFC
 * 6749 fixes the shape of their errors.
 */
@Injectable()
export class StorableInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = httpRequestOf<FastifyRequest>(context);
    if (isStorable(request.params) && isStorable(request.query) && isStorable(request.body)) {
      return true;
    }
    const errors = [...unstorableText(request.params), ...unstorableText(request.query)];
    const bodyErrors = unstorableText(request.body);
    // A route that judges a refused body itself (a finalized order answers 405 to any
    // report) gets this refusal as it gets a parser's.
    if (errors.length === 0 && bodyErrors.length > 0 && takesRefusedBody(request)) {
      request.body = new RefusedBody(new RequestValidationError(bodyErrors));
      return true;
    }
    errors.push(...bodyErrors);
    if (errors.length > 0) throw new RequestValidationError(errors);
    return true;
  }
}
