import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { BasketNotFoundError } from '../domain/order.errors';
import { BasketEntity } from './basket.entity';
import { isUuid } from './order.repository';

@Injectable()
export class BasketRepository {
  async get(tx: Tx, tenantId: string, basketId: string, forUpdate = false): Promise<BasketEntity> {
    const basket = isUuid(basketId)
      ? await tx.findOne(BasketEntity, {
          where: { tenantId, id: basketId },
          ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
        })
      : null;
    if (!basket) throw new BasketNotFoundError(basketId);
    return basket;
  }

  async save(tx: Tx, basket: BasketEntity): Promise<void> {
    await tx.save(BasketEntity, basket);
  }

  /** The basket became `orderId`: one UPDATE, without `save`'s read of the row first. */
  async markCheckedOut(tx: Tx, basket: BasketEntity, orderId: string): Promise<void> {
    await tx.update(BasketEntity, { id: basket.id, tenantId: basket.tenantId }, { orderId });
    basket.orderId = orderId;
  }
}
