import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { BasketRepository } from '../../persistence/basket.repository';
import { OrderChargesRepository } from '../../persistence/order-charges.repository';
import { StoreRepository } from '../../persistence/store.repository';
import { priceBasket, type PricedBasket } from './basket-view';

@Injectable()
export class ReadBasket {
  constructor(
    private readonly baskets: BasketRepository,
    private readonly stores: StoreRepository,
    private readonly charges: OrderChargesRepository,
  ) {}

  async execute(tx: Tx, tenantId: string, basketId: string): Promise<PricedBasket> {
    const basket = await this.baskets.get(tx, tenantId, basketId);
    return this.price(tx, tenantId, basket.id);
  }

  /** Shared by the writes, which answer the basket as it now reads. */
  async price(tx: Tx, tenantId: string, basketId: string): Promise<PricedBasket> {
    const basket = await this.baskets.get(tx, tenantId, basketId);
    const store = await this.stores.get(tx, tenantId, basket.storeId);
    return priceBasket(basket, store.currency, await this.charges.valuesOf(tx, tenantId));
  }
}
