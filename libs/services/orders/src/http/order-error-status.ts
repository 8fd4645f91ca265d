import { ProblemError, lookupTable } from '@comanda/http';
import { OrdersDomainError } from '../domain/order.errors';

/** The one table from domain error codes to what a client sees. */
export const ORDER_ERROR_STATUS: Readonly<Record<string, { status: number; title: string }>> =
  lookupTable({
    'store.not_found': { status: 404, title: 'Store not found' },
    'menu.item_not_found': { status: 404, title: 'Menu item not found' },
    'menu.duplicate_item': { status: 400, title: 'Duplicate menu item' },
    'basket.not_found': { status: 404, title: 'Basket not found' },
    'basket.checked_out': { status: 409, title: 'Basket already checked out' },
    'basket.empty': { status: 409, title: 'Basket is empty' },
    'basket.currency_changed': { status: 409, title: 'Store currency changed' },
    'basket.limit_reached': { status: 409, title: 'Basket limit reached' },
    'basket.address_required': { status: 400, title: 'Address required' },
    'discount.invalid_target': { status: 409, title: 'Discount names no unit of the basket' },
    'discount.already_applied': { status: 409, title: 'Discount already applied' },
    'checkout.merchant_mismatch': { status: 409, title: 'Payment merchant mismatch' },
    'checkout.nothing_to_pay': { status: 409, title: 'Nothing to pay' },
    'checkout.idempotency_key_reused': { status: 409, title: 'Idempotency-Key already used' },
    'order.not_found': { status: 404, title: 'Order not found' },
    'order.not_ready': { status: 409, title: 'Order not ready to be placed' },
    'order.already_finalized': { status: 405, title: 'Order already finalized' },
    'order.ref_taken': { status: 409, title: 'Order reference already used' },
    'order.receipt_not_found': { status: 404, title: 'Receipt not found' },
    'order.confirmation_email_not_found': { status: 404, title: 'Confirmation e-mail not found' },
  });

function problemOf(error: OrdersDomainError): ProblemError {
  const mapped = ORDER_ERROR_STATUS[error.code] ?? { status: 409, title: 'Conflict' };
  return new ProblemError({
    status: mapped.status,
    code: error.code,
    title: mapped.title,
    detail: error.message,
    // 405 names what the resource still allows (RFC 9110): a report's URL of a finalized
    // order allows nothing any more, which an empty Allow says.
    ...(mapped.status === 405 ? { headers: { allow: '' } } : {}),
  });
}

/** The orders domain errors thrown by use cases as problems: the service's `domainProblems`. */
export function orderProblem(error: unknown): ProblemError | undefined {
  return error instanceof OrdersDomainError ? problemOf(error) : undefined;
}
