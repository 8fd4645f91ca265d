import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { checkDiscount } from '../../domain/basket';
import { BasketCheckedOutError, StoreNotFoundError } from '../../domain/order.errors';
import type { Discount } from '../../domain/order';
import { BasketRepository } from '../../persistence/basket.repository';
import { priceBasket, type PricedBasket } from './basket-view';

export interface AddDiscountCommand {
  tenantId: string;
  basketId: string;
  discount: Discount;
}

/** A loyalty discount on units of the basket's items, with its own mappingDetails. */
@Injectable()
export class AddDiscount {
  constructor(private readonly baskets: BasketRepository) {}

  async execute(tx: Tx, command: AddDiscountCommand): Promise<PricedBasket> {
    const { basket, store, chargeValues } = await this.baskets.getInContext(
      tx,
      command.tenantId,
      command.basketId,
      true,
    );
    if (basket.orderId) throw new BasketCheckedOutError(basket.id, basket.orderId);
    if (!store) throw new StoreNotFoundError(basket.storeId);
    const priced = priceBasket(basket, store.currency, chargeValues);
    checkDiscount(priced.items, basket.discounts, command.discount);
    basket.discounts = [...basket.discounts, command.discount];
    await this.baskets.saveContents(tx, basket);
    return priceBasket(basket, store.currency, chargeValues);
  }
}
