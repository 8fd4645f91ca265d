import { ProblemError } from '@comanda/http';
import { SubscriptionDomainError } from './subscription.errors';

const STATUS_BY_CODE = new Map<string, { status: number; title: string }>([
  ['subscription.not_found', { status: 404, title: 'Event subscription not found' }],
  ['subscription.delivery_not_found', { status: 404, title: 'Delivery not found' }],
  ['subscription.limit_reached', { status: 409, title: 'Too many event subscriptions' }],
]);
const URL_REFUSED = { status: 422, title: 'Subscription URL refused' };

/** The one table from subscription error codes to HTTP statuses (problem+json). */
export function subscriptionProblem(error: unknown): ProblemError | undefined {
  if (!(error instanceof SubscriptionDomainError)) return undefined;
  const { status, title } = STATUS_BY_CODE.get(error.code) ?? URL_REFUSED;
  return new ProblemError({
    status,
    code: error.code,
    title,
    detail: error.message,
    errors: error.field ? [{ path: error.field, message: error.message }] : undefined,
    cause: error,
  });
}
