import { Injectable } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { isFinalized, move, recordRepeated } from '../../domain/order';
import { OrderAlreadyFinalizedError } from '../../domain/order.errors';
import { OrderRepository } from '../../persistence/order.repository';
import type { CallbackOutcome } from '../callback-outcome';
import { OrderAnnouncer } from '../order-announcer';
import {
  ExpirePlacement,
  placementDeadlinePassed,
} from '../placement-timeout/expire-placement.usecase';
import { PlacementTimers } from '../placement-timers';

export interface ReportFailedCommand {
  tenantId: string;
  orderId: string;
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** `pos/failed`: finalizes the order as failed with the POS's code and emits `order.placement_failed`. */
@Injectable()
export class ReportFailed {
  constructor(
    private readonly orders: OrderRepository,
    private readonly timers: PlacementTimers,
    private readonly announcer: OrderAnnouncer,
    private readonly expirePlacement: ExpirePlacement,
  ) {}

  async execute(tx: Tx, command: ReportFailedCommand): Promise<CallbackOutcome> {
    await this.timers.disarm(tx, command.orderId);
    const order = await this.orders.get(tx, command.tenantId, command.orderId, true);
    const now = await databaseNow(tx);
    if (placementDeadlinePassed(order, now)) {
      await this.expirePlacement.expire(tx, order, 'placement_timeout', now);
    }
    if (isFinalized(order.status)) {
      recordRepeated(order, 'callback_refused', now, {
        callback: 'pos/failed',
        code: command.code,
      });
      await this.orders.save(tx, order);
      return { accepted: false, error: new OrderAlreadyFinalizedError(order.id, order.status) };
    }
    move(order, 'pos_failed', now, { code: command.code });
    order.failure = {
      code: command.code,
      message: command.message,
      ...(command.data !== undefined ? { data: command.data } : {}),
      at: now.toISOString(),
    };
    await this.orders.save(tx, order);
    await this.announcer.placementFailed(tx, order, 'pos');
    return { accepted: true, order };
  }
}
