/**
 * Business errors of webhook subscriptions: a stable code and a message, no HTTP status
 * (`subscription-problems.ts` maps codes to statuses in one table).
 */
export class SubscriptionDomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class SubscriptionNotFoundError extends SubscriptionDomainError {
  constructor(id: string) {
    super('subscription.not_found', `The tenant has no event subscription "${id}".`);
  }
}

export class DeliveryNotFoundError extends SubscriptionDomainError {
  constructor(subscriptionId: string, deliveryId: string) {
    super(
      'subscription.delivery_not_found',
      `Event subscription "${subscriptionId}" has no delivery "${deliveryId}".`,
    );
  }
}

export class SubscriptionLimitReachedError extends SubscriptionDomainError {
  constructor(limit: number) {
    super(
      'subscription.limit_reached',
      `A tenant has at most ${limit} event subscriptions; delete one before adding another.`,
    );
  }
}

/** The URL may not be called from this deployment (form, scheme or address). */
export class SubscriptionUrlRefusedError extends SubscriptionDomainError {
  constructor(code: string, reason: string) {
    super(code, `The subscription URL is refused: ${reason}.`, 'url');
  }
}
