import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { LIMITS } from '../../domain/limits';
import {
  BasketCheckedOutError,
  BasketFullError,
  MenuItemNotFoundError,
  StoreNotFoundError,
} from '../../domain/order.errors';
import { BasketRepository } from '../../persistence/basket.repository';
import { priceBasket, type PricedBasket } from './basket-view';

export interface AddItemCommand {
  tenantId: string;
  basketId: string;
  menuItemId: string;
  quantity: number;
}

/** A new line from the current menu; each unit of it gets its own id (discounts name units). */
@Injectable()
export class AddItem {
  constructor(private readonly baskets: BasketRepository) {}

  async execute(tx: Tx, command: AddItemCommand): Promise<PricedBasket> {
    const { basket, store, chargeValues } = await this.baskets.getInContext(
      tx,
      command.tenantId,
      command.basketId,
      true,
    );
    if (basket.orderId) throw new BasketCheckedOutError(basket.id, basket.orderId);
    if (basket.lines.length >= LIMITS.basketLines) {
      throw new BasketFullError('lines', LIMITS.basketLines);
    }
    if (!store) throw new StoreNotFoundError(basket.storeId);
    const menuItem = store.menu.find((item) => item.id === command.menuItemId);
    if (!menuItem) throw new MenuItemNotFoundError(command.menuItemId);
    basket.lines = [
      ...basket.lines,
      {
        id: randomUUID(),
        type: menuItem.type,
        menuItemId: menuItem.id,
        title: menuItem.title,
        quantity: command.quantity,
        unitPrice: menuItem.price,
        units: Array.from({ length: command.quantity }, () => ({ id: randomUUID() })),
        mappingDetails: menuItem.mappingDetails,
      },
    ];
    await this.baskets.saveContents(tx, basket);
    return priceBasket(basket, store.currency, chargeValues);
  }
}
