import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { checkDiscountAmounts } from '../../domain/basket';
import { record, totalsOf } from '../../domain/order';
import {
  BasketCheckedOutError,
  BasketCurrencyChangedError,
  BasketEmptyError,
  IdempotencyKeyReusedError,
  NothingToPayError,
  PaymentMerchantMismatchError,
  StoreNotFoundError,
} from '../../domain/order.errors';
import { BasketRepository } from '../../persistence/basket.repository';
import {
  CheckoutKeysRepository,
  type CheckoutAnswer,
} from '../../persistence/checkout-keys.repository';
import { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';
import { priceBasket } from '../baskets/basket-view';
import { CloseOrder } from '../close-order/close-order';
import { OrderAnnouncer } from '../order-announcer';

export interface CheckoutCommand {
  tenantId: string;
  basketId: string;
  idempotencyKey?: string;
}

/**
 * Turns the basket into an order: a snapshot of its lines, the tenant's charge items, the
 * discounts and the store. Without a payment the order closes at once; with one it waits
 * for `payment.authorized` (payments runs that leg from `basket.checked_out`).
 */
@Injectable()
export class Checkout {
  constructor(
    private readonly baskets: BasketRepository,
    private readonly orders: OrderRepository,
    private readonly keys: CheckoutKeysRepository,
    private readonly announcer: OrderAnnouncer,
    private readonly closeOrder: CloseOrder,
  ) {}

  async execute(tx: Tx, command: CheckoutCommand): Promise<CheckoutAnswer> {
    const { tenantId, idempotencyKey } = command;
    const { basket, store, chargeValues, now } = await this.baskets.getInContext(
      tx,
      tenantId,
      command.basketId,
      true,
    );
    if (idempotencyKey !== undefined) {
      const claim = await this.keys.claim(tx, tenantId, idempotencyKey, basket.id);
      if (!claim.claimed) {
        if (claim.basketId !== basket.id || !claim.answer) throw new IdempotencyKeyReusedError();
        return claim.answer;
      }
    }
    if (basket.orderId) throw new BasketCheckedOutError(basket.id, basket.orderId);
    if (basket.lines.length === 0) throw new BasketEmptyError();
    if (!store) throw new StoreNotFoundError(basket.storeId);
    // Lines keep the prices they were added at; a store that changed currency since would
    // re-label them (baskets started before the currency was kept have none to compare).
    if (basket.currency !== null && basket.currency !== store.currency) {
      throw new BasketCurrencyChangedError(basket.currency, store.currency);
    }
    if (basket.paymentRequest && basket.paymentRequest.merchantId !== store.paymentMerchantId) {
      throw new PaymentMerchantMismatchError(store.storeId);
    }
    const priced = priceBasket(basket, store.currency, chargeValues);
    // The charge items are priced now: the discounts on them must still fit.
    checkDiscountAmounts(priced.items, basket.discounts);
    const totals = totalsOf(priced.items, basket.discounts, store.currency);
    // Payments would fail it at once (`amount_invalid`): refused now, the basket left open.
    if (basket.paymentRequest && totals.total <= 0) throw new NothingToPayError(store.currency);
    const order = Object.assign(new OrderEntity(), {
      id: randomUUID(),
      tenantId,
      basketId: basket.id,
      storeId: store.storeId,
      status: basket.paymentRequest ? 'awaiting_payment' : 'ready',
      fulfillment: basket.fulfillment,
      requestedReadyTime: basket.requestedReadyTime,
      guest: basket.guest,
      storeDetails: {
        id: store.storeId,
        name: store.name,
        currency: store.currency,
        mappingDetails: store.mappingDetails,
      },
      items: priced.items,
      discounts: basket.discounts,
      totals,
      paymentRequest: basket.paymentRequest,
      payments: [],
      paymentId: null,
      placement: null,
      failure: null,
      receipt: null,
      timeline: [],
      createdAt: now,
      readyAt: null,
      finalizedAt: null,
      updatedAt: now,
    } satisfies Partial<OrderEntity>);
    record(order, 'checked_out', now, { basketId: basket.id });
    // basket.checked_out, and the ready event when the order closes now, in one statement.
    await this.announcer.together(tx, async () => {
      await this.announcer.checkedOut(tx, order);
      if (order.status === 'ready') await this.closeOrder.execute(tx, order, now);
    });
    // Written once, as it stands after closing, the basket marked checked out by the same
    // statement: all of it commits together or not at all.
    await this.orders.insert(tx, order, basket);
    const answer: CheckoutAnswer = { orderId: order.id, status: order.status };
    if (idempotencyKey !== undefined)
      await this.keys.remember(tx, tenantId, idempotencyKey, answer);
    return answer;
  }
}
