import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { AddressRequiredError, PaymentMerchantMismatchError } from '../../domain/order.errors';
import type { Fulfillment, Guest, PaymentRequest } from '../../domain/order';
import { BasketEntity } from '../../persistence/basket.entity';
import { BasketRepository } from '../../persistence/basket.repository';
import { StoreRepository } from '../../persistence/store.repository';
import { ReadBasket } from './read-basket.usecase';
import type { PricedBasket } from './basket-view';

export interface CreateBasketCommand {
  tenantId: string;
  storeId: string;
  fulfillment: Fulfillment;
  requestedReadyTime?: string;
  guest: Guest;
  payment?: PaymentRequest;
}

@Injectable()
export class CreateBasket {
  constructor(
    private readonly baskets: BasketRepository,
    private readonly stores: StoreRepository,
    private readonly reader: ReadBasket,
  ) {}

  async execute(tx: Tx, command: CreateBasketCommand): Promise<PricedBasket> {
    const store = await this.stores.get(tx, command.tenantId, command.storeId);
    if (command.fulfillment === 'delivery' && command.guest.address === undefined) {
      throw new AddressRequiredError();
    }
    if (command.payment && command.payment.merchantId !== store.paymentMerchantId) {
      throw new PaymentMerchantMismatchError(store.storeId);
    }
    const basket = Object.assign(new BasketEntity(), {
      id: randomUUID(),
      tenantId: command.tenantId,
      storeId: store.storeId,
      currency: store.currency,
      fulfillment: command.fulfillment,
      requestedReadyTime: command.requestedReadyTime ?? null,
      guest: command.guest,
      paymentRequest: command.payment ?? null,
      lines: [],
      discounts: [],
      orderId: null,
      createdAt: new Date(),
    });
    await this.baskets.save(tx, basket);
    return this.reader.price(tx, command.tenantId, basket.id);
  }
}
