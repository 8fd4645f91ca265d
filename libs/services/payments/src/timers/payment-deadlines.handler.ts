import { Injectable } from '@nestjs/common';
import { OnTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { ApplyPaymentTrigger } from '../usecases/apply-trigger/apply-payment-trigger.usecase';
import { PaymentTimers, type OperationTimerPayload, type PaymentTimerPayload } from './timer-names';

/** The payment deadlines, each run in the transaction that marks its timer fired. */
@Injectable()
export class PaymentDeadlinesHandler {
  constructor(private readonly apply: ApplyPaymentTrigger) {}

  // Waits for the partner's event: after an outage the partner gets a grace to deliver again
  // an event refused meanwhile (docs/adr/0060). The reservation's end is the partner's, not ours.
  @OnTimer(PaymentTimers.OperationTimeout, { graceAfterOutage: true })
  async operationTimedOut(payload: OperationTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, {
      kind: 'operation_deadline',
      operationId: payload.operationId,
    });
  }

  @OnTimer(PaymentTimers.CaptureRetry)
  async captureRetryDue(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'capture_retry_due' });
  }

  @OnTimer(PaymentTimers.AnnulmentRetry)
  async annulmentRetryDue(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'annulment_retry_due' });
  }

  @OnTimer(PaymentTimers.ReservationExpiry)
  async reservationExpired(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'reservation_expired' });
  }
}
