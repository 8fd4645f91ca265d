import { Injectable } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { move, record } from '../../domain/order';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';
import { OrderAnnouncer } from '../order-announcer';
import { PlacementTimers } from '../placement-timers';

export interface StartSessionCommand {
  tenantId: string;
  orderId: string;
  placeOrderSessionId: string;
}

/**
 * Starts (or resumes) the placement session and answers the full order. The first start
 * arms the placement deadline; a repeat, with the same or another session id, never moves it.
 */
@Injectable()
export class StartSession {
  constructor(
    private readonly orders: OrderRepository,
    private readonly timers: PlacementTimers,
    private readonly announcer: OrderAnnouncer,
  ) {}

  async execute(tx: Tx, command: StartSessionCommand): Promise<OrderEntity> {
    await this.timers.releasePickup(tx, command.orderId);
    const order = await this.orders.get(tx, command.tenantId, command.orderId, true);
    const now = await databaseNow(tx);
    const first = order.status === 'ready';
    move(order, 'session_started', now, { placeOrderSessionId: command.placeOrderSessionId });
    if (first) {
      const expiresAt = await this.timers.armPlacement(tx, order.tenantId, order.id, now);
      order.placement = {
        sessionId: command.placeOrderSessionId,
        startedAt: now.toISOString(),
        expiresAt: expiresAt.toISOString(),
      };
      await this.announcer.placementStarted(tx, order);
    } else if (order.placement?.sessionId !== command.placeOrderSessionId) {
      record(order, 'session_resumed_with_other_id', now, {
        placeOrderSessionId: command.placeOrderSessionId,
      });
    }
    await this.orders.save(tx, order);
    return order;
  }
}
