import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderAnnouncer } from '../order-announcer';
import { PlacementTimers } from '../placement-timers';

/**
 * What happens when an order closes (at checkout without payment, on payment.authorized):
 * the one `order.ready_to_be_placed_in_pos` and the pickup deadline, in the caller's
 * transaction. The caller has already moved the order to `ready`.
 */
@Injectable()
export class CloseOrder {
  constructor(
    private readonly announcer: OrderAnnouncer,
    private readonly timers: PlacementTimers,
  ) {}

  async execute(tx: Tx, order: OrderEntity, now: Date): Promise<void> {
    order.readyAt = now;
    await this.announcer.readyToBePlaced(tx, order);
    await this.timers.armPickup(tx, order.tenantId, order.id, now);
  }
}
