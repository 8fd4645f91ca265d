import { Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import type { OrderEntity } from '../persistence/order.entity';

/**
 * The order's events, written to the outbox in the caller's transaction. Subject is the
 * order id; no payload carries personal data.
 */
@Injectable()
export class OrderAnnouncer {
  constructor(private readonly outbox: OutboxWriter) {}

  async checkedOut(tx: Tx, order: OrderEntity): Promise<void> {
    await this.outbox.add(tx, {
      type: EventTypes.BasketCheckedOut,
      tenantId: order.tenantId,
      subject: order.id,
      data: {
        orderId: order.id,
        basketId: order.basketId,
        storeId: order.storeId,
        total: { value: order.totals.total, currency: order.totals.currency },
        ...(order.paymentRequest
          ? {
              payment: {
                merchantId: order.paymentRequest.merchantId,
                paymentMethod: order.paymentRequest.paymentMethod,
              },
            }
          : {}),
      },
    });
  }

  async readyToBePlaced(tx: Tx, order: OrderEntity): Promise<void> {
    await this.outbox.add(tx, {
      type: EventTypes.OrderReadyToBePlacedInPos,
      tenantId: order.tenantId,
      subject: order.id,
      data: {
        orderId: order.id,
        storeId: order.storeId,
        ...(order.requestedReadyTime ? { requestedReadyTime: order.requestedReadyTime } : {}),
      },
    });
  }

  /** The guest's checkout failed (payment): the order never reaches a POS. */
  async checkoutFailed(tx: Tx, order: OrderEntity): Promise<void> {
    if (!order.failure) return;
    await this.outbox.add(tx, {
      type: EventTypes.OrderCheckoutFailed,
      tenantId: order.tenantId,
      subject: order.id,
      data: { orderId: order.id, reason: order.failure.message },
    });
  }

  async placementStarted(tx: Tx, order: OrderEntity): Promise<void> {
    const { sessionId, expiresAt } = order.placement ?? {};
    if (!sessionId || !expiresAt) return;
    await this.outbox.add(tx, {
      type: EventTypes.OrderPlacementStarted,
      tenantId: order.tenantId,
      subject: order.id,
      data: {
        orderId: order.id,
        placeOrderSessionId: sessionId,
        expiresAt,
      },
    });
  }

  async placed(tx: Tx, order: OrderEntity): Promise<void> {
    const report = order.placement?.report;
    if (!report) return;
    await this.outbox.add(tx, {
      type: EventTypes.OrderPlaced,
      tenantId: order.tenantId,
      subject: order.id,
      data: {
        orderId: order.id,
        orderName: report.orderName,
        datePlaced: report.datePlaced,
        estimatedReadyTime: report.estimatedReadyTime,
        orderRefs: report.orderRefsDict ?? {},
        ...(order.paymentId ? { paymentId: order.paymentId } : {}),
      },
    });
  }

  async placementFailed(tx: Tx, order: OrderEntity, cause: 'pos' | 'timeout'): Promise<void> {
    if (!order.failure) return;
    await this.outbox.add(tx, {
      type: EventTypes.OrderPlacementFailed,
      tenantId: order.tenantId,
      subject: order.id,
      data: {
        orderId: order.id,
        code: order.failure.code,
        message: order.failure.message,
        cause,
        ...(order.paymentId ? { paymentId: order.paymentId } : {}),
      },
    });
  }
}
