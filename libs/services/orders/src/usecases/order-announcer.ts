import { Injectable } from '@nestjs/common';
import {
  EventTypes,
  type EventType,
  type NewEvent,
  type OrderPlacementFailed,
} from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import type { OrderEntity } from '../persistence/order.entity';

/**
 * The order's events, written to the outbox in the caller's transaction. Subject is the
 * order id; no payload carries personal data.
 */
@Injectable()
export class OrderAnnouncer {
  /** The events announced in a transaction inside `together`, until it writes them. */
  private readonly pending = new WeakMap<Tx, NewEvent<EventType>[]>();

  constructor(private readonly outbox: OutboxWriter) {}

  /**
   * Runs `work`; the events it announces in `tx` are written once it is done, in the order
   * announced and in one statement (one round trip, not one per event). Inside an outer
   * `together` of the same transaction, they join that one.
   */
  async together<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
    if (this.pending.has(tx)) return work();
    const events: NewEvent<EventType>[] = [];
    this.pending.set(tx, events);
    try {
      const result = await work();
      await this.outbox.addAll(tx, events);
      return result;
    } finally {
      this.pending.delete(tx);
    }
  }

  async checkedOut(tx: Tx, order: OrderEntity): Promise<void> {
    await this.announce(tx, {
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
    await this.announce(tx, {
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
    await this.announce(tx, {
      type: EventTypes.OrderCheckoutFailed,
      tenantId: order.tenantId,
      subject: order.id,
      data: { orderId: order.id, reason: order.failure.message },
    });
  }

  async placementStarted(tx: Tx, order: OrderEntity): Promise<void> {
    const { sessionId, expiresAt } = order.placement ?? {};
    if (!sessionId || !expiresAt) return;
    await this.announce(tx, {
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
    await this.announce(tx, {
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

  async placementFailed(
    tx: Tx,
    order: OrderEntity,
    cause: OrderPlacementFailed['cause'],
  ): Promise<void> {
    if (!order.failure) return;
    await this.announce(tx, {
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

  private async announce<T extends EventType>(tx: Tx, event: NewEvent<T>): Promise<void> {
    const pending = this.pending.get(tx);
    if (pending) pending.push(event as NewEvent<EventType>);
    else await this.outbox.add(tx, event);
  }
}
