/** Durable timers of the payments service; the key of each is named beside it. */
export const PaymentTimers = {
  /** key: operation id. Fires when the completion event did not arrive in time. */
  OperationTimeout: 'payment-operation-timeout',
  /** key: payment id. The next capture attempt after `capture_failed`. */
  CaptureRetry: 'payment-capture-retry',
  /** key: payment id. The next annulment attempt after one failed or timed out. */
  AnnulmentRetry: 'payment-annulment-retry',
  /** key: payment id. `RESERVATION_TTL_MS` after registration. */
  ReservationExpiry: 'payment-reservation-expiry',
} as const;

export interface OperationTimerPayload extends Record<string, unknown> {
  paymentId: string;
  operationId: string;
}

export interface PaymentTimerPayload extends Record<string, unknown> {
  paymentId: string;
}
