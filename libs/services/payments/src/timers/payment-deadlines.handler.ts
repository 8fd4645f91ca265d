import { Injectable } from '@nestjs/common';
import { OnTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { PaymentRepository } from '../persistence/payment.repository';
import { ApplyPaymentTrigger } from '../usecases/apply-trigger/apply-payment-trigger.usecase';
import { PaymentTimers, type OperationTimerPayload, type PaymentTimerPayload } from './timer-names';

/**
 * The payment deadlines, each run in the transaction that marks its timer fired. Each locks
 * its payment before its timer's row (`lockFirst`): every trigger locks the payment, then
 * cancels or schedules its timers, so a firing the other way round would deadlock with a
 * partner's event that ends the operation it waits for (docs/adr/0061).
 */
@Injectable()
export class PaymentDeadlinesHandler {
  constructor(
    private readonly apply: ApplyPaymentTrigger,
    private readonly payments: PaymentRepository,
  ) {}

  lockPayment(payload: PaymentTimerPayload, tx: Tx): Promise<unknown> {
    return this.payments.lock(tx, payload.paymentId);
  }

  // Waits for the partner's event: after an outage the partner gets a grace to deliver again
  // an event refused meanwhile (docs/adr/0060). The reservation's end is the partner's, not ours.
  @OnTimer(PaymentTimers.OperationTimeout, { graceAfterOutage: true, lockFirst: 'lockPayment' })
  async operationTimedOut(payload: OperationTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, {
      kind: 'operation_deadline',
      operationId: payload.operationId,
    });
  }

  @OnTimer(PaymentTimers.CaptureRetry, { lockFirst: 'lockPayment' })
  async captureRetryDue(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'capture_retry_due' });
  }

  @OnTimer(PaymentTimers.AnnulmentRetry, { lockFirst: 'lockPayment' })
  async annulmentRetryDue(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'annulment_retry_due' });
  }

  @OnTimer(PaymentTimers.ReservationExpiry, { lockFirst: 'lockPayment' })
  async reservationExpired(payload: PaymentTimerPayload, tx: Tx): Promise<void> {
    await this.apply.execute(tx, payload.paymentId, { kind: 'reservation_expired' });
  }
}
