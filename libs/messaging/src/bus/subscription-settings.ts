import { DEFAULT_RETRY_POLICY, type RetryPolicy, type Subscription } from './message-bus';
import { InvalidSubscriptionError } from './messaging.errors';
import { assertRetryPolicy } from './retry-schedule';

/**
 * The rules every bus applies to a subscription, so RabbitMQ and the in-process bus refuse
 * the same ones: a queue name, at least one event type, a valid retry policy and prefetch.
 */
export function subscriptionSettings(
  subscription: Subscription,
  defaultPrefetch: number,
): { retry: RetryPolicy; prefetch: number } {
  if (!subscription.queue) throw new InvalidSubscriptionError('a subscription needs a queue name');
  if (subscription.eventTypes.length === 0) {
    throw new InvalidSubscriptionError(`queue ${subscription.queue} is bound to no event type`);
  }
  const retry = subscription.retry ?? DEFAULT_RETRY_POLICY;
  assertRetryPolicy(retry);
  const prefetch = subscription.prefetch ?? defaultPrefetch;
  if (!Number.isInteger(prefetch) || prefetch < 1) {
    throw new InvalidSubscriptionError(`prefetch must be a positive integer, got ${prefetch}`);
  }
  return { retry, prefetch };
}
