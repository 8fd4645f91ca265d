import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { OrderChargesEntity } from './order-charges.entity';

@Injectable()
export class OrderChargesRepository {
  /** The tenant's current `order-charges` values; undefined when it has none (or removed them). */
  async valuesOf(tx: Tx, tenantId: string): Promise<Record<string, unknown> | undefined> {
    const row = await tx.findOne(OrderChargesEntity, { where: { tenantId } });
    return row && !row.deleted ? row.values : undefined;
  }

  find(tx: Tx, tenantId: string): Promise<OrderChargesEntity | null> {
    return tx.findOne(OrderChargesEntity, {
      where: { tenantId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async save(tx: Tx, row: OrderChargesEntity): Promise<void> {
    await tx.save(OrderChargesEntity, row);
  }
}
