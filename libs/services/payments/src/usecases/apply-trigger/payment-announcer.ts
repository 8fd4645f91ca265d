import { Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import type { Payment } from '../../domain/payment';
import type { AnnouncedEvent } from '../../domain/payment-state-machine';

const TYPES = {
  registered: EventTypes.PaymentRegistered,
  authorized: EventTypes.PaymentAuthorized,
  captured: EventTypes.PaymentCaptured,
  annulled: EventTypes.PaymentAnnulled,
} as const;

/** Writes the bus event of a payment's move into the outbox of the caller's transaction. */
@Injectable()
export class PaymentAnnouncer {
  constructor(private readonly outbox: OutboxWriter) {}

  async announce(tx: Tx, payment: Payment, event: AnnouncedEvent): Promise<void> {
    const data = { paymentId: payment.id, orderId: payment.orderId, amount: payment.amount };
    const envelope = { tenantId: payment.tenantId, subject: payment.id };
    if (event === 'failed') {
      await this.outbox.add(tx, {
        ...envelope,
        type: EventTypes.PaymentFailed,
        data: { ...data, reason: payment.saga.failureReason ?? 'payment_failed' },
      });
    } else if (event === 'annulment_failed') {
      const attempts = payment.saga.annulmentFailures;
      await this.outbox.add(tx, {
        ...envelope,
        type: EventTypes.PaymentAnnulmentFailed,
        data: { ...data, reason: `no annulment succeeded in ${attempts} attempt(s)` },
      });
    } else {
      await this.outbox.add(tx, { ...envelope, type: TYPES[event], data });
    }
  }
}
