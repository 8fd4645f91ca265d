import { lookupTable } from '@comanda/http';
import type { OrderPayment } from './order';

/**
 * How far a payment has come. Payment events share one queue, but a redelivery or parallel
 * handling may still apply an older one last: a payment's status only moves forward.
 */
const PROGRESS: Readonly<Record<string, number>> = lookupTable({
  registered: 1,
  authorized: 2,
  captured: 3,
  annulled: 3,
  failed: 3,
  // The partner may still hold the money; a late annulment success may still end it annulled.
  annulment_failed: 3,
});

/** The order's payments with `update` applied, unless it would move its payment backwards. */
export function withPaymentUpdate(payments: OrderPayment[], update: OrderPayment): OrderPayment[] {
  const current = payments.find((payment) => payment.paymentId === update.paymentId);
  if (!current) return [...payments, update];
  if ((PROGRESS[update.status] ?? 0) < (PROGRESS[current.status] ?? 0)) return payments;
  return payments.map((payment) => (payment.paymentId === update.paymentId ? update : payment));
}
