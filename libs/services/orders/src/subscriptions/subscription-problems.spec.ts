import { ProblemError } from '@comanda/http';
import { subscriptionProblem } from './subscription-problems';
import {
  DeliveryNotFoundError,
  SubscriptionLimitReachedError,
  SubscriptionNotFoundError,
  SubscriptionUrlRefusedError,
} from './subscription.errors';

describe('subscription error statuses', () => {
  it.each([
    [new SubscriptionNotFoundError('s'), 404, 'subscription.not_found'],
    [new DeliveryNotFoundError('s', 'd'), 404, 'subscription.delivery_not_found'],
    [new SubscriptionLimitReachedError(20), 409, 'subscription.limit_reached'],
    [new SubscriptionUrlRefusedError('url.not_https', 'https only'), 422, 'url.not_https'],
  ])('answers %p with %i and its code', (error, status, code) => {
    const problem = subscriptionProblem(error);
    expect(problem).toBeInstanceOf(ProblemError);
    expect(problem).toMatchObject({ status, code, detail: error.message });
  });

  it('names the url field when the URL is refused', () => {
    expect(
      subscriptionProblem(
        new SubscriptionUrlRefusedError('url.non_public_address', 'a loopback address'),
      ),
    ).toMatchObject({ errors: [{ path: 'url', message: expect.stringContaining('loopback') }] });
  });

  it('leaves other errors to the HTTP kit', () => {
    expect(subscriptionProblem(new Error('database down'))).toBeUndefined();
  });
});
