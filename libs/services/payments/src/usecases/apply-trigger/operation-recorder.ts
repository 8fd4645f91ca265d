import { Injectable } from '@nestjs/common';
import { EventTypes, type PaymentOperationType } from '@comanda/contracts';
import { OutboxWriter, TimerService } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { operationRequestBody, type Payment } from '../../domain/payment';
import { PaymentRepository } from '../../persistence/payment.repository';
import { PaymentsConfig } from '../../payments.config';
import { PaymentTimers, type OperationTimerPayload } from '../../timers/timer-names';

/**
 * Records an operation to send, its deadline and its `payment.operation_requested` event in
 * the caller's transaction. Nothing is sent
 * here: the sender picks the operation up after commit, so a rollback sends nothing and a
 * crash after commit loses nothing.
 */
@Injectable()
export class OperationRecorder {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly timers: TimerService,
    private readonly outbox: OutboxWriter,
    private readonly config: PaymentsConfig,
  ) {}

  async record(
    tx: Tx,
    payment: Payment,
    operationId: string,
    type: PaymentOperationType,
    now: Date,
  ): Promise<void> {
    const deadlineAt = new Date(now.getTime() + this.config.PAYMENT_OPERATION_TIMEOUT_MS);
    await this.payments.addOperation(
      tx,
      {
        id: operationId,
        paymentId: payment.id,
        tenantId: payment.tenantId,
        merchantId: payment.merchantId,
        type,
        body: JSON.stringify(operationRequestBody(payment, operationId, type)),
        deadlineAt,
      },
      now,
    );
    await this.timers.schedule<OperationTimerPayload>(tx, {
      name: PaymentTimers.OperationTimeout,
      key: operationId,
      fireAt: deadlineAt,
      payload: { paymentId: payment.id, operationId },
    });
    await this.outbox.add(tx, {
      type: EventTypes.PaymentOperationRequested,
      tenantId: payment.tenantId,
      subject: payment.id,
      data: {
        paymentId: payment.id,
        orderId: payment.orderId,
        operationId,
        operationType: type,
        amount: payment.amount,
      },
    });
  }
}
