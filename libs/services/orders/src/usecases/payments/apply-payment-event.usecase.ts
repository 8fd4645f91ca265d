import { Injectable, Logger } from '@nestjs/common';
import type {
  PaymentFailed,
  PaymentOperationRequested,
  PaymentStateChanged,
} from '@comanda/contracts';
import type { Tx } from '@comanda/persistence';
import { move, nextStatus, record } from '../../domain/order';
import { withOperationRequested, withPaymentUpdate } from '../../domain/order-payments';
import { OrderRepository } from '../../persistence/order.repository';
import { CloseOrder } from '../close-order/close-order';
import { OrderAnnouncer } from '../order-announcer';

export type PaymentEventStatus =
  'registered' | 'authorized' | 'captured' | 'annulled' | 'failed' | 'annulment_failed';

export interface PaymentEventCommand {
  tenantId: string;
  status: PaymentEventStatus;
  event: PaymentStateChanged | PaymentFailed;
}

/** Payment events after which the order's money is no longer held for it. */
const ENDED_UNPAID: ReadonlySet<PaymentEventStatus> = new Set([
  'annulled',
  'failed',
  'annulment_failed',
]);

/**
 * Keeps the order's `payments[]` and timeline from the payments service's events, and runs
 * the order's leg of the saga: authorized closes it, failed fails it visibly, and so does a
 * payment that ends before the order is placed. An event that makes no sense in the order's
 * state is recorded, never an error (it would only dead-letter).
 */
@Injectable()
export class ApplyPaymentEvent {
  private readonly logger = new Logger(ApplyPaymentEvent.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly closeOrder: CloseOrder,
    private readonly announcer: OrderAnnouncer,
  ) {}

  async execute(tx: Tx, command: PaymentEventCommand): Promise<void> {
    const { event, status } = command;
    const order = await this.lockOrder(tx, command.tenantId, event.orderId, `payment.${status}`);
    if (!order) return;
    const now = new Date();
    const reason = 'reason' in event ? event.reason : undefined;
    const entry = {
      paymentId: event.paymentId,
      status,
      amount: event.amount,
      ...(reason !== undefined ? { reason } : {}),
      updatedAt: now.toISOString(),
    };
    order.payments = withPaymentUpdate(order.payments, entry);
    const detail = { paymentId: event.paymentId, ...(reason !== undefined ? { reason } : {}) };

    if (status === 'authorized' && nextStatus(order.status, 'payment_authorized')) {
      order.paymentId = event.paymentId;
      move(order, 'payment_authorized', now, detail);
      await this.closeOrder.execute(tx, order, now);
    } else if (ENDED_UNPAID.has(status) && order.status === 'awaiting_payment') {
      // The checkout fails, whichever end of the payment arrives first: a retried
      // `payment.failed` may be overtaken by its `payment.annulled` (ADR 0002).
      move(order, 'payment_failed', now, detail);
      order.failure = {
        code: 'payment.failed',
        message: reason ?? `The payment ended (${status}) before the checkout completed.`,
        at: now.toISOString(),
      };
      await this.announcer.checkoutFailed(tx, order);
    } else if (
      ENDED_UNPAID.has(status) &&
      (order.status === 'ready' || order.status === 'placing')
    ) {
      // Announced to the POS, not placed yet, and its money released (the reservation
      // expired): placing it now would serve an order nobody pays for (ADR 0051).
      move(order, 'payment_failed', now, detail);
      order.failure = {
        code: `payment.${status}`,
        message: `The payment ended (${status}) before the order was placed: it cannot be placed any more.`,
        at: now.toISOString(),
      };
      await this.announcer.placementFailed(tx, order, 'payment');
    } else {
      record(order, `payment.${status}`, now, detail);
    }
    await this.orders.save(tx, order);
  }

  /**
   * Payments asked the partner for an operation: the order lists the payment from its first
   * request on, and counts its captures (`withOperationRequested`). Nothing moves the order,
   * and the timeline is left to the payment's state changes.
   */
  async operationRequested(
    tx: Tx,
    tenantId: string,
    event: PaymentOperationRequested,
  ): Promise<void> {
    const order = await this.lockOrder(tx, tenantId, event.orderId, 'payment.operation_requested');
    if (!order) return;
    // An event of a payments service from before the amount was announced: the order's own.
    const amount = event.amount ?? { value: order.totals.total, currency: order.totals.currency };
    const payments = withOperationRequested(
      order.payments,
      { paymentId: event.paymentId, operationType: event.operationType, amount },
      new Date().toISOString(),
    );
    if (payments === order.payments) return;
    order.payments = payments;
    await this.orders.save(tx, order);
  }

  /** The order an event names, locked; none (said in the log) when its tenant has no such order. */
  private async lockOrder(tx: Tx, tenantId: string, orderId: string, eventType: string) {
    const order = await this.orders.find(tx, tenantId, orderId, true);
    if (!order) this.logger.warn(`${eventType} names order ${orderId}, unknown to its tenant`);
    return order;
  }
}
