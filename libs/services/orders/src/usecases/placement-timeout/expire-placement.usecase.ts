import { Injectable, Logger } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { move, nextStatus, type OrderTrigger } from '../../domain/order';
import { OrderRepository } from '../../persistence/order.repository';
import { OrderAnnouncer } from '../order-announcer';

export interface ExpirePlacementCommand {
  tenantId: string;
  orderId: string;
  /** `placement_timeout` after a session start, `pickup_timeout` when no POS started one. */
  trigger: Extract<OrderTrigger, 'placement_timeout' | 'pickup_timeout'>;
}

const FAILURES = {
  placement_timeout: {
    code: 'placement.timeout',
    message: 'Neither pos/placed nor pos/failed arrived within the placement timeout.',
  },
  pickup_timeout: {
    code: 'placement.not_picked_up',
    message: 'No POS started a placement session for the order in time.',
  },
} as const;

/**
 * A placement deadline passed: the order fails and is finalized, unless a callback got
 * there first (the order row lock makes the two take turns, so exactly one wins).
 */
@Injectable()
export class ExpirePlacement {
  private readonly logger = new Logger(ExpirePlacement.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly announcer: OrderAnnouncer,
  ) {}

  async execute(tx: Tx, command: ExpirePlacementCommand): Promise<void> {
    const order = await this.orders.find(tx, command.tenantId, command.orderId, true);
    if (!order || !nextStatus(order.status, command.trigger)) {
      this.logger.debug(`${command.trigger} of ${command.orderId} has nothing left to do`);
      return;
    }
    const now = await databaseNow(tx);
    const failure = FAILURES[command.trigger];
    move(order, command.trigger, now, { code: failure.code });
    order.failure = { ...failure, at: now.toISOString() };
    await this.orders.save(tx, order);
    await this.announcer.placementFailed(tx, order, 'timeout');
  }
}
