import { Injectable } from '@nestjs/common';
import type { ConfigUpdated } from '@comanda/contracts';
import type { Tx } from '@comanda/persistence';
import { ORDER_CHARGES_ENTITY } from '../../domain/charge-items';
import { OrderChargesEntity } from '../../persistence/order-charges.entity';
import { OrderChargesRepository } from '../../persistence/order-charges.repository';

/**
 * Keeps orders' copy of the tenant's `order-charges` config. Versions only grow (a removal
 * marks the last version; a new config continues the numbering), so an older event that
 * arrives late never overwrites a newer one.
 */
@Injectable()
export class ProjectOrderCharges {
  constructor(private readonly charges: OrderChargesRepository) {}

  async execute(tx: Tx, tenantId: string, event: ConfigUpdated): Promise<void> {
    if (event.entity !== ORDER_CHARGES_ENTITY) return;
    if (!event.deleted && event.values === undefined) return;
    const current = await this.charges.find(tx, tenantId);
    if (
      current &&
      (event.version < current.version || (event.version === current.version && !event.deleted))
    ) {
      return;
    }
    await this.charges.save(
      tx,
      Object.assign(current ?? new OrderChargesEntity(), {
        tenantId,
        version: event.version,
        deleted: event.deleted,
        values: event.deleted ? {} : (event.values ?? {}),
        updatedAt: new Date(),
      }),
    );
  }
}
