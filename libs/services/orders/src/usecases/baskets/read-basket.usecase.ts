import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { StoreNotFoundError } from '../../domain/order.errors';
import { BasketRepository } from '../../persistence/basket.repository';
import { priceBasket, type PricedBasket } from './basket-view';

@Injectable()
export class ReadBasket {
  constructor(private readonly baskets: BasketRepository) {}

  async execute(tx: Tx, tenantId: string, basketId: string): Promise<PricedBasket> {
    return this.price(tx, tenantId, basketId);
  }

  /** Shared by the writes, which answer the basket as it now reads. */
  async price(tx: Tx, tenantId: string, basketId: string): Promise<PricedBasket> {
    const { basket, store, chargeValues } = await this.baskets.getInContext(tx, tenantId, basketId);
    if (!store) throw new StoreNotFoundError(basket.storeId);
    return priceBasket(basket, store.currency, chargeValues);
  }
}
