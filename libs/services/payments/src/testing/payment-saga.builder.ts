import type {
  PaymentSaga,
  PaymentState,
  PendingOperation,
  SagaPolicy,
} from '../domain/payment-state-machine';

export const TEST_POLICY: SagaPolicy = {
  reservationTtlMs: 7 * 24 * 3_600_000,
  captureRetryDelaysMs: [60_000, 300_000],
  annulmentRetryDelaysMs: [60_000, 300_000],
};

/** `aSaga().in('capturing').awaiting({id: 'op-1', type: 'capture'}).build()` */
export function aSaga(): SagaBuilder {
  return new SagaBuilder();
}

export class SagaBuilder {
  private saga: PaymentSaga = {
    state: 'registration_pending',
    pending: { id: 'op-registration', type: 'registration' },
    failureReason: null,
    reservationExpiresAt: null,
    captureFailures: 0,
    lastAnnulmentId: null,
    annulmentFailures: 0,
  };

  in(state: PaymentState): this {
    this.saga = { ...this.saga, state };
    return this;
  }

  awaiting(pending: PendingOperation | null): this {
    this.saga = { ...this.saga, pending };
    return this;
  }

  lastAnnulment(id: string): this {
    this.saga = { ...this.saga, lastAnnulmentId: id };
    return this;
  }

  reservationUntil(at: Date): this {
    this.saga = { ...this.saga, reservationExpiresAt: at };
    return this;
  }

  build(): PaymentSaga {
    return { ...this.saga };
  }
}

/** Operation ids `op-1`, `op-2`, ... in the order a test asks for them. */
export function sequentialIds(prefix = 'op'): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}
