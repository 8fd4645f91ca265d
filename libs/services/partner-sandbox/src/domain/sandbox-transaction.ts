import type { Money, PartnerEventType, PaymentOperationType } from '@comanda/contracts';
import { staysSilent, type PaymentMethodToken } from './payment-method-tokens';

export type TransactionState =
  | 'new'
  | 'registered'
  | 'registration_failed'
  | 'registration_cancelled'
  /** Registration completed but its event could not be delivered: rolled back (rule 4). */
  | 'aborted'
  | 'authorized'
  | 'authorization_failed'
  | 'captured'
  | 'annulled';

export type DeliveryStatus =
  'scheduled' | 'delivered' | 'rejected' | 'delivery_failed' | 'aborted' | 'not_sent';

export interface DeliveryAttempt {
  at: string;
  url: string;
  status?: number;
  error?: string;
}

export interface LedgerEvent {
  eventId: string;
  type: PartnerEventType;
  reason?: string;
  occurredAt: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
}

export interface LedgerOperation {
  operationId: string;
  operationType: PaymentOperationType;
  receivedAt: string;
  /** Requests with this operation's Idempotency-Key answered without running it again. */
  replays: number;
  stateBefore: TransactionState;
  stateAfter: TransactionState;
  /** Absent when the behaviour says no event is sent for this operation. */
  event?: LedgerEvent;
}

export interface SandboxTransaction {
  paymentId: string;
  merchantId: string;
  orderId: string;
  amount: Money;
  paymentMethod: string;
  state: TransactionState;
  createdAt: string;
  /** When the partner annulled the transaction on its own side (`sandbox_reservation_lapsed`). */
  lapsedAt?: string;
  operations: LedgerOperation[];
}

export interface Outcome {
  /** Undefined: accepted, and no event follows. */
  event?: { type: PartnerEventType; reason?: string };
  next: TransactionState;
}

/**
 * What an operation does to a transaction in `state`: the partner's side of the spec's
 * table. An operation the state does not allow is still accepted (202) and answered with its
 * failure event (rule 5: capture on an annulled transaction → capture_failed).
 */
export function decide(
  state: TransactionState,
  operation: PaymentOperationType,
  token: PaymentMethodToken,
): Outcome {
  const outcome = decideEvent(state, operation, token);
  if (staysSilent(token, operation)) return { next: outcome.next };
  return outcome;
}

function decideEvent(
  state: TransactionState,
  operation: PaymentOperationType,
  token: PaymentMethodToken,
): Required<Pick<Outcome, 'next'>> & { event: NonNullable<Outcome['event']> } {
  const fail = (type: PartnerEventType, reason: string, next = state) => ({
    event: { type, reason },
    next,
  });
  switch (operation) {
    case 'registration':
      if (state !== 'new') return fail('registration_failed', `transaction_${state}`);
      if (token === 'sandbox_registration_declined') {
        return fail('registration_failed', 'declined', 'registration_failed');
      }
      if (token === 'sandbox_registration_cancelled') {
        return fail('registration_cancelled', 'cancelled_by_user', 'registration_cancelled');
      }
      return { event: { type: 'registration_succeeded' }, next: 'registered' };
    case 'authorization':
      if (state !== 'registered') return fail('authorization_failed', `transaction_${state}`);
      if (token === 'sandbox_authorization_declined') {
        return fail('authorization_failed', 'declined', 'authorization_failed');
      }
      // Authorized, then annulled by the partner itself at once: its reservation lapsed.
      if (token === 'sandbox_reservation_lapsed') {
        return { event: { type: 'authorization_succeeded' }, next: 'annulled' };
      }
      return { event: { type: 'authorization_succeeded' }, next: 'authorized' };
    case 'capture':
      if (state !== 'authorized') return fail('capture_failed', `transaction_${state}`);
      if (token === 'sandbox_capture_failing') return fail('capture_failed', 'capture_declined');
      return { event: { type: 'capture_succeeded' }, next: 'captured' };
    case 'annulment':
      if (state === 'registered' || state === 'authorized') {
        return { event: { type: 'annulment_succeeded' }, next: 'annulled' };
      }
      // The merchant never heard of the partner's own annulment: releasing it again is done.
      if (state === 'annulled' && token === 'sandbox_reservation_lapsed') {
        return {
          event: { type: 'annulment_succeeded', reason: 'reservation_lapsed' },
          next: state,
        };
      }
      // Never registered here (its registration was lost on the way, or not sent): nothing is
      // reserved, and a registration arriving late must not reserve anything either.
      if (state === 'new') {
        return {
          event: { type: 'annulment_succeeded', reason: 'nothing_reserved' },
          next: 'annulled',
        };
      }
      if (state === 'annulled' || state === 'captured') {
        return fail('annulment_failed', `transaction_${state}`);
      }
      // Failed, cancelled or aborted: nothing is reserved, so there is nothing left to release.
      return { event: { type: 'annulment_succeeded', reason: 'nothing_reserved' }, next: state };
  }
}
