import type { Money, PaymentOperationRequest, PaymentOperationType } from '@comanda/contracts';
import type { PaymentSaga, PaymentState } from './payment-state-machine';

/** A payment as stored: who pays what for which order, and where its saga stands. */
export interface Payment {
  id: string;
  tenantId: string;
  orderId: string;
  merchantId: string;
  paymentMethod: string;
  amount: Money;
  saga: PaymentSaga;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * `sending` until the partner answers 202 (`accepted`) or 400 (`rejected`); then the
 * completion event makes it `succeeded` or `failed`, or the timeout `timed_out`.
 */
/**
 * `superseded`: the payment no longer waits for it, because an earlier operation of its type
 * succeeded late (ADR 0050, 0052); it is not sent any more.
 */
export type OperationStatus =
  'sending' | 'accepted' | 'rejected' | 'succeeded' | 'failed' | 'timed_out' | 'superseded';

export interface PaymentOperation {
  id: string;
  paymentId: string;
  type: PaymentOperationType;
  status: OperationStatus;
  sendAttempts: number;
  lastError: string | null;
  createdAt: Date;
  acceptedAt: Date | null;
  completedAt: Date | null;
  deadlineAt: Date;
}

/**
 * Ignored events (duplicates, late or out-of-order ones) a payment lists one by one; past
 * these, each is counted on the last one listed (`repeats`), so a partner that keeps posting
 * events the saga ignores cannot grow the payment without bound. Applied events are bounded
 * by the saga itself (its operations and their retries).
 */
export const LISTED_IGNORED_EVENTS = 20;

/** One thing that happened to a payment, applied or not (duplicates are recorded too). */
export interface PaymentEventRecord {
  trigger: string;
  eventId: string | null;
  operationId: string | null;
  reason: string | null;
  applied: boolean;
  note: string;
  stateBefore: PaymentState;
  stateAfter: PaymentState;
  occurredAt: Date | null;
  recordedAt: Date;
  /** This event and the ignored ones counted on it (1 for every event but the last listed). */
  repeats: number;
  /** When the latest event counted on this one was recorded (null while `repeats` is 1). */
  lastRecordedAt: Date | null;
}

/** The operation request body of ARCHITECTURE.md, sent byte for byte on every retry. */
export type OperationRequestBody = PaymentOperationRequest;

export function operationRequestBody(
  payment: Payment,
  operationId: string,
  operationType: PaymentOperationType,
): OperationRequestBody {
  return {
    operationId,
    operationType,
    paymentId: payment.id,
    orderId: payment.orderId,
    merchantId: payment.merchantId,
    amount: { value: payment.amount.value, currency: payment.amount.currency },
    paymentMethod: payment.paymentMethod,
  };
}
