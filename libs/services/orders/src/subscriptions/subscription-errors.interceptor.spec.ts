import type { ExecutionContext } from '@nestjs/common';
import { ProblemError } from '@comanda/http';
import { lastValueFrom, throwError } from 'rxjs';
import { SubscriptionErrorsInterceptor } from './subscription-errors.interceptor';
import {
  DeliveryNotFoundError,
  SubscriptionLimitReachedError,
  SubscriptionNotFoundError,
  SubscriptionUrlRefusedError,
} from './subscription.errors';

function answerTo(error: Error): Promise<unknown> {
  const observable = new SubscriptionErrorsInterceptor().intercept({} as ExecutionContext, {
    handle: () => throwError(() => error),
  });
  return lastValueFrom(observable).catch((thrown: unknown) => thrown);
}

describe('subscription error statuses', () => {
  it.each([
    [new SubscriptionNotFoundError('s'), 404, 'subscription.not_found'],
    [new DeliveryNotFoundError('s', 'd'), 404, 'subscription.delivery_not_found'],
    [new SubscriptionLimitReachedError(20), 409, 'subscription.limit_reached'],
    [new SubscriptionUrlRefusedError('url.not_https', 'https only'), 422, 'url.not_https'],
  ])('answers %p with %i and its code', async (error, status, code) => {
    const problem = await answerTo(error);
    expect(problem).toBeInstanceOf(ProblemError);
    expect(problem).toMatchObject({ status, code, detail: error.message });
  });

  it('names the url field when the URL is refused', async () => {
    expect(
      await answerTo(
        new SubscriptionUrlRefusedError('url.non_public_address', 'a loopback address'),
      ),
    ).toMatchObject({ errors: [{ path: 'url', message: expect.stringContaining('loopback') }] });
  });

  it('lets other errors through unchanged', async () => {
    const other = new Error('database down');
    expect(await answerTo(other)).toBe(other);
  });
});
