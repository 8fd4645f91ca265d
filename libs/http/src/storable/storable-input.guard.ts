import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { RequestValidationError } from '../validation/request-validation.error';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { unstorableText } from './storable-text';

/**
 * Refuses input the database cannot store before the validation pipe and the handler see
 * it. An interceptor because it runs ahead of every pipe, the global validation pipe too.
 * Services attach it to the controllers whose input reaches PostgreSQL as text or jsonb
 * (`@UseInterceptors(StorableInputInterceptor)`); the OAuth endpoints keep their own checks
 * because RFC 6749 fixes the shape of their errors.
 */
@Injectable()
export class StorableInputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const errors = [
      ...unstorableText(request.params),
      ...unstorableText(request.query),
      ...unstorableText(request.body),
    ];
    if (errors.length > 0) throw new RequestValidationError(errors);
    return next.handle();
  }
}
