import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC filter replaces any error with "Internal server error" before the
 * transport sees it. Registered on the microservice, this filter passes the original error
 * through, so retry and dead-letter records name the real cause.
 */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
