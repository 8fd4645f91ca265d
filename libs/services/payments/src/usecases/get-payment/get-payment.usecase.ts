import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { Payment, PaymentEventRecord, PaymentOperation } from '../../domain/payment';
import { PaymentRepository } from '../../persistence/payment.repository';
import { PaymentNotFoundError } from './payment.errors';

export interface PaymentDetails {
  payment: Payment;
  operations: PaymentOperation[];
  events: PaymentEventRecord[];
}

/** A payment of the tenant with its operations and every trigger it saw; another tenant's is 404. */
@Injectable()
export class GetPayment {
  constructor(private readonly payments: PaymentRepository) {}

  async execute(tx: Tx, tenantId: string, id: string): Promise<PaymentDetails> {
    const payment = await this.payments.find(tx, tenantId, id);
    if (!payment) throw new PaymentNotFoundError(id);
    return {
      payment,
      operations: await this.payments.operationsOf(tx, id),
      events: await this.payments.eventsOf(tx, id),
    };
  }
}
