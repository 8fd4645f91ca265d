import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { BasketCheckedOut } from '@comanda/contracts';
import { databaseNow, type Tx } from '@comanda/persistence';
import type { Payment } from '../../domain/payment';
import type { PaymentSaga } from '../../domain/payment-state-machine';
import { MerchantRepository } from '../../persistence/merchant.repository';
import { PaymentRepository } from '../../persistence/payment.repository';
import { OperationRecorder } from '../apply-trigger/operation-recorder';
import { PaymentAnnouncer } from '../apply-trigger/payment-announcer';

/**
 * A checkout with a payment starts the saga: the payment and its registration are recorded
 * together. An unknown merchant or an unusable amount fails the payment (and so the
 * checkout) visibly instead of leaving the order waiting.
 */
@Injectable()
export class StartPayment {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly merchants: MerchantRepository,
    private readonly operations: OperationRecorder,
    private readonly announcer: PaymentAnnouncer,
  ) {}

  async execute(
    tx: Tx,
    tenantId: string,
    checkout: BasketCheckedOut,
    at?: Date,
  ): Promise<Payment | undefined> {
    if (!checkout.payment) return undefined;
    // Deadlines are fired by the database's clock: decide by it too (tests may pass a time).
    const now = at ?? (await databaseNow(tx));
    // A checkout event redelivered under another id must not start a second payment.
    if (await this.payments.existsForOrder(tx, tenantId, checkout.orderId)) return undefined;
    const { merchantId, paymentMethod } = checkout.payment;
    const merchant = await this.merchants.find(tx, tenantId, merchantId);
    const problem = !merchant
      ? `merchant_unknown: no merchant "${merchantId}" is configured`
      : !Number.isSafeInteger(checkout.total.value) || checkout.total.value <= 0
        ? `amount_invalid: ${checkout.total.value} is not a positive amount in minor units`
        : undefined;
    const registrationId = randomUUID();
    const saga: PaymentSaga = problem
      ? {
          state: 'failed',
          pending: null,
          failureReason: problem,
          reservationExpiresAt: null,
          captureFailures: 0,
          lastAnnulmentId: null,
          annulmentFailures: 0,
        }
      : {
          state: 'registration_pending',
          pending: { id: registrationId, type: 'registration' },
          failureReason: null,
          reservationExpiresAt: null,
          captureFailures: 0,
          lastAnnulmentId: null,
          annulmentFailures: 0,
        };
    const payment: Payment = {
      id: randomUUID(),
      tenantId,
      orderId: checkout.orderId,
      merchantId,
      paymentMethod,
      amount: { value: checkout.total.value, currency: checkout.total.currency },
      saga,
      createdAt: now,
      updatedAt: now,
    };
    await this.payments.insert(tx, payment);
    if (problem) {
      await this.announcer.announce(tx, payment, 'failed');
    } else {
      await this.operations.record(tx, payment, registrationId, 'registration', now);
    }
    await this.payments.record(
      tx,
      payment.id,
      {
        trigger: 'checkout',
        eventId: null,
        operationId: problem ? null : registrationId,
        reason: problem ?? null,
        applied: true,
        note: problem ? 'payment failed at checkout' : 'payment created; registration sent',
        stateBefore: saga.state,
        stateAfter: saga.state,
        occurredAt: null,
      },
      now,
    );
    return payment;
  }
}
