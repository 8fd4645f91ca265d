import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { checkDiscount } from '../../domain/basket';
import { BasketCheckedOutError } from '../../domain/order.errors';
import type { Discount } from '../../domain/order';
import { BasketRepository } from '../../persistence/basket.repository';
import { ReadBasket } from './read-basket.usecase';
import type { PricedBasket } from './basket-view';

export interface AddDiscountCommand {
  tenantId: string;
  basketId: string;
  discount: Discount;
}

/** A loyalty discount on units of the basket's items, with its own mappingDetails. */
@Injectable()
export class AddDiscount {
  constructor(
    private readonly baskets: BasketRepository,
    private readonly reader: ReadBasket,
  ) {}

  async execute(tx: Tx, command: AddDiscountCommand): Promise<PricedBasket> {
    const basket = await this.baskets.get(tx, command.tenantId, command.basketId, true);
    if (basket.orderId) throw new BasketCheckedOutError(basket.id, basket.orderId);
    const priced = await this.reader.price(tx, command.tenantId, basket.id);
    checkDiscount(priced.items, basket.discounts, command.discount);
    basket.discounts = [...basket.discounts, command.discount];
    await this.baskets.save(tx, basket);
    return this.reader.price(tx, command.tenantId, basket.id);
  }
}
