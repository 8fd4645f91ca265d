import { Injectable } from '@nestjs/common';
import type { PendingTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { isFinalized, recordRepeated } from '../domain/order';
import { OrderAlreadyFinalizedError } from '../domain/order.errors';
import type { OrderEntity } from '../persistence/order.entity';
import { OrderRepository } from '../persistence/order.repository';
import type { CallbackOutcome } from './callback-outcome';
import { PlacementTimers } from './placement-timers';
import {
  arrival,
  ExpirePlacement,
  placementDeadlinePassed,
} from './placement-timeout/expire-placement.usecase';

export type PosCallback = 'pos/placed' | 'pos/failed';

export type OpenedCallback =
  | { order: OrderEntity; now: Date; refused?: undefined }
  | { refused: Extract<CallbackOutcome, { accepted: false }> };

/** A POS callback as it reached the service. */
export interface PosCall {
  tenantId: string;
  orderId: string;
  /** What the timeline keeps of a refused call: its name and a summary, never the body. */
  refusal: { callback: PosCallback } & Record<string, unknown>;
  /**
   * When the call reached the service: the deadline is judged at that instant, not when a
   * slow database let the call through (docs/adr/0060). Absent: when it is handled.
   */
  receivedAt?: Date;
}

/**
 * How every POS callback starts, under the order's row lock: a placement deadline that has
 * passed fails the order first (it holds to the instant the call arrived, not to when the
 * timer poller gets to it, unless it is held back for a grace after an outage,
 * docs/adr/0060), and a finalized order refuses the callback, whatever its body (the spec's
 * 405 has no condition), with the refusal counted on its timeline.
 */
@Injectable()
export class OpenCallback {
  constructor(
    private readonly orders: OrderRepository,
    private readonly expirePlacement: ExpirePlacement,
    private readonly timers: PlacementTimers,
  ) {}

  /** The same for a call that leaves the deadlines armed (a report refused as invalid). */
  async withDeadlinesArmed(tx: Tx, call: PosCall): Promise<OpenedCallback> {
    return this.execute(tx, call, await this.timers.pendingPlacement(tx, call.orderId));
  }

  async execute(
    tx: Tx,
    call: PosCall,
    /** The placement deadline's timer as `PlacementTimers.disarm` found it. */
    placementTimer: PendingTimer | undefined,
  ): Promise<OpenedCallback> {
    const { order, now } = await this.orders.getLocked(tx, call.tenantId, call.orderId);
    if (placementDeadlinePassed(order, arrival(call.receivedAt, now), placementTimer)) {
      await this.expirePlacement.expire(tx, order, 'placement_timeout', now);
    }
    if (!isFinalized(order.status)) return { order, now };
    recordRepeated(order, 'callback_refused', now, call.refusal);
    await this.orders.save(tx, order);
    return {
      refused: { accepted: false, error: new OrderAlreadyFinalizedError(order.id, order.status) },
    };
  }
}
