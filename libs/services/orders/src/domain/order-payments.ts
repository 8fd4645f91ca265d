import { lookupTable } from '@comanda/http';
import type { OrderPayment } from './order';

/**
 * How far a payment has come. Payment events share one queue, but a redelivery or parallel
 * handling may still apply an older one last: a payment's status only moves forward.
 */
const PROGRESS: Readonly<Record<string, number>> = lookupTable({
  // Its registration was requested of the partner, which has not confirmed it yet.
  pending: 0,
  registered: 1,
  authorized: 2,
  captured: 3,
  annulled: 3,
  failed: 3,
  // The partner may still hold the money; a late annulment success may still end it annulled.
  annulment_failed: 3,
});

/**
 * The order's payments with `update` applied, unless it would move its payment backwards.
 * The capture attempts counted so far stay.
 */
export function withPaymentUpdate(payments: OrderPayment[], update: OrderPayment): OrderPayment[] {
  const current = payments.find((payment) => payment.paymentId === update.paymentId);
  if (!current) return [...payments, update];
  if ((PROGRESS[update.status] ?? 0) < (PROGRESS[current.status] ?? 0)) return payments;
  const updated =
    current.captureAttempts === undefined
      ? update
      : { ...update, captureAttempts: current.captureAttempts };
  return payments.map((payment) => (payment.paymentId === update.paymentId ? updated : payment));
}

/**
 * The order's payments once payments asked the partner for an operation: the payment is
 * listed from its first request on (`pending`, with its id, before the partner confirms the
 * registration), and each capture requested is counted (`captureAttempts`), so that an order
 * read shows a capture the partner keeps failing.
 */
export function withOperationRequested(
  payments: OrderPayment[],
  request: { paymentId: string; operationType: string; amount: OrderPayment['amount'] },
  at: string,
): OrderPayment[] {
  const current = payments.find((payment) => payment.paymentId === request.paymentId);
  const capture = request.operationType === 'capture' ? 1 : 0;
  if (!current) {
    return [
      ...payments,
      {
        paymentId: request.paymentId,
        status: 'pending',
        amount: request.amount,
        ...(capture ? { captureAttempts: capture } : {}),
        updatedAt: at,
      },
    ];
  }
  if (!capture) return payments;
  return payments.map((payment) =>
    payment === current
      ? { ...current, captureAttempts: (current.captureAttempts ?? 0) + 1, updatedAt: at }
      : payment,
  );
}
