import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { move, recordRepeated, transition } from '../../domain/order';
import { OrderNotReadyError } from '../../domain/order.errors';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';
import { OrderAnnouncer } from '../order-announcer';
import { PlacementTimers } from '../placement-timers';
import {
  arrival,
  ExpirePlacement,
  placementDeadlinePassed,
} from '../placement-timeout/expire-placement.usecase';

export interface StartSessionCommand {
  tenantId: string;
  orderId: string;
  placeOrderSessionId: string;
  /** When the call reached the service (the deadline is judged at it). */
  receivedAt?: Date;
}

/** The order, or why the start was refused once what it changed is committed. */
export type StartOutcome = { order: OrderEntity; refused?: undefined } | { refused: Error };

/**
 * Starts (or resumes) the placement session and answers the full order. The first start
 * arms the placement deadline; a repeat, with the same or another session id, never moves it.
 * A repeat after the deadline fails the order first, as a callback does (the deadline holds
 * to the instant, not to when the timer poller gets to it, unless it is held back for a grace
 * after an outage, docs/adr/0060), and is refused: an adapter told
 * the session is still open would send to the POS an order that can only fail.
 */
@Injectable()
export class StartSession {
  constructor(
    private readonly orders: OrderRepository,
    private readonly timers: PlacementTimers,
    private readonly announcer: OrderAnnouncer,
    private readonly expirePlacement: ExpirePlacement,
  ) {}

  async execute(tx: Tx, command: StartSessionCommand): Promise<StartOutcome> {
    await this.timers.releasePickup(tx, command.orderId);
    const { order, now } = await this.orders.getLocked(tx, command.tenantId, command.orderId);
    const at = arrival(command.receivedAt, now);
    // The timer is read only when the order's own deadline has passed (a held one may not have).
    if (
      placementDeadlinePassed(order, at) &&
      placementDeadlinePassed(order, at, await this.timers.pendingPlacement(tx, order.id))
    ) {
      await this.expirePlacement.expire(tx, order, 'placement_timeout', now);
      return { refused: new OrderNotReadyError(order.id, order.status) };
    }
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
    return { order };
  }
}
