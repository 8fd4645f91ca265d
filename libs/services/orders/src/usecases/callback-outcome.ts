import type { OrdersDomainError } from '../domain/order.errors';
import type { OrderEntity } from '../persistence/order.entity';

/**
 * A POS callback either changes the order or is refused; a refused one is still written to
 * the timeline, so the caller commits and then answers the error.
 */
export type CallbackOutcome =
  { accepted: true; order: OrderEntity } | { accepted: false; error: OrdersDomainError };
