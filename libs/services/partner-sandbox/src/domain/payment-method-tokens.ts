import type { PaymentOperationType } from '@comanda/contracts';

/**
 * What the sandbox does, chosen by `paymentMethod` like test card numbers. Any other value
 * behaves as `sandbox_success`. A token may end in `;delay=<ms>` to set its event delay.
 */
export const PAYMENT_METHOD_TOKENS = {
  sandbox_success: 'every operation succeeds',
  sandbox_registration_declined: 'registration ends in registration_failed (reason "declined")',
  sandbox_registration_cancelled:
    'registration ends in registration_cancelled (the user cancels while processing)',
  sandbox_authorization_declined: 'authorization ends in authorization_failed (reason "declined")',
  sandbox_capture_failing: 'every capture ends in capture_failed (reason "capture_declined")',
  sandbox_reservation_lapsed:
    'authorization succeeds, then the partner annuls the transaction on its own side (the reservation lapsed there): every capture meets an annulled transaction, 202 then capture_failed (reason "transaction_annulled", rule 5); an annulment succeeds (reason "reservation_lapsed")',
  sandbox_no_event: 'every operation is accepted (202) and no event is ever sent',
  sandbox_no_event_registration: 'no event for registration; other operations as success',
  sandbox_no_event_authorization: 'no event for authorization; other operations as success',
  sandbox_no_event_capture: 'no event for capture; other operations as success',
  sandbox_no_event_annulment: 'no event for annulment; other operations as success',
  sandbox_receiver_500:
    'registration completes, but delivering registration_succeeded meets a receiver answering 500: the sandbox aborts the registration and sends nothing (rule 4)',
} as const;

export type PaymentMethodToken = keyof typeof PAYMENT_METHOD_TOKENS;

export interface Behaviour {
  token: PaymentMethodToken;
  /** Overrides the configured event delay. */
  delayMs?: number;
}

const DELAY_SUFFIX = /;delay=(\d{1,7})$/;

export function behaviourOf(paymentMethod: string): Behaviour {
  const delay = DELAY_SUFFIX.exec(paymentMethod);
  const name = delay ? paymentMethod.slice(0, delay.index) : paymentMethod;
  const token = (Object.keys(PAYMENT_METHOD_TOKENS) as PaymentMethodToken[]).includes(
    name as PaymentMethodToken,
  )
    ? (name as PaymentMethodToken)
    : 'sandbox_success';
  return delay ? { token, delayMs: Number(delay[1]) } : { token };
}

/** True when the token says this operation gets no completion event. */
export function staysSilent(token: PaymentMethodToken, operation: PaymentOperationType): boolean {
  return token === 'sandbox_no_event' || token === `sandbox_no_event_${operation}`;
}
