import { Injectable } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { isFinalized, recordRepeated } from '../domain/order';
import { OrderAlreadyFinalizedError } from '../domain/order.errors';
import type { OrderEntity } from '../persistence/order.entity';
import { OrderRepository } from '../persistence/order.repository';
import type { CallbackOutcome } from './callback-outcome';
import {
  ExpirePlacement,
  placementDeadlinePassed,
} from './placement-timeout/expire-placement.usecase';

export type PosCallback = 'pos/placed' | 'pos/failed';

export type OpenedCallback =
  | { order: OrderEntity; now: Date; refused?: undefined }
  | { refused: Extract<CallbackOutcome, { accepted: false }> };

/**
 * How every POS callback starts, under the order's row lock: a placement deadline that has
 * passed fails the order first (it holds to the instant, not to when the timer poller gets
 * to it), and a finalized order refuses the callback, whatever its body (the spec's 405 has
 * no condition), with the refusal counted on its timeline.
 */
@Injectable()
export class OpenCallback {
  constructor(
    private readonly orders: OrderRepository,
    private readonly expirePlacement: ExpirePlacement,
  ) {}

  async execute(
    tx: Tx,
    tenantId: string,
    orderId: string,
    /** What the timeline keeps of a refused call: its name and a summary, never the body. */
    refusal: { callback: PosCallback } & Record<string, unknown>,
  ): Promise<OpenedCallback> {
    const order = await this.orders.get(tx, tenantId, orderId, true);
    const now = await databaseNow(tx);
    if (placementDeadlinePassed(order, now)) {
      await this.expirePlacement.expire(tx, order, 'placement_timeout', now);
    }
    if (!isFinalized(order.status)) return { order, now };
    recordRepeated(order, 'callback_refused', now, refusal);
    await this.orders.save(tx, order);
    return {
      refused: { accepted: false, error: new OrderAlreadyFinalizedError(order.id, order.status) },
    };
  }
}
