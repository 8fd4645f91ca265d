import { Injectable } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { move, recordRepeated, transition } from '../../domain/order';
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
    if (first) {
      move(order, 'session_started', now, { placeOrderSessionId: command.placeOrderSessionId });
      const expiresAt = await this.timers.armPlacement(tx, order.tenantId, order.id, now);
      order.placement = {
        sessionId: command.placeOrderSessionId,
        startedAt: now.toISOString(),
        expiresAt: expiresAt.toISOString(),
      };
      await this.announcer.placementStarted(tx, order);
    } else {
      // A repeat: refused unless the session is under way, and counted, not written again.
      transition(order.id, order.status, 'session_started');
      // UUIDs compare without regard to case (RFC 9562): the session's own spelling is kept.
      const current = order.placement?.sessionId ?? null;
      const sameId = current?.toLowerCase() === command.placeOrderSessionId.toLowerCase();
      recordRepeated(order, sameId ? 'session_resumed' : 'session_resumed_with_other_id', now, {
        placeOrderSessionId: sameId ? current : command.placeOrderSessionId,
      });
    }
    await this.orders.save(tx, order);
    return order;
  }
}
