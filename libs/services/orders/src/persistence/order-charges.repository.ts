import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { OrderChargesEntity } from './order-charges.entity';

/** The tenant's current `order-charges` values; undefined when it has none (or removed them). */
export function currentChargeValues(
  row: OrderChargesEntity | null,
): Record<string, unknown> | undefined {
  return row && !row.deleted ? row.values : undefined;
}

@Injectable()
export class OrderChargesRepository {
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
