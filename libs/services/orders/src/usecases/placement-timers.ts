import { Injectable } from '@nestjs/common';
import { TimerService, type PendingTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { OrdersConfig } from '../orders.config';

/** Names of the durable timers (the `@OnTimer` handlers in `timers/`). */
export const PLACEMENT_TIMEOUT_TIMER = 'placement-timeout';
export const PICKUP_TIMEOUT_TIMER = 'placement-pickup-timeout';

export interface PlacementTimerPayload extends Record<string, unknown> {
  tenantId: string;
  orderId: string;
}

/**
 * The timers' key for an order: its id as orders' ids are stored, in lower case. A caller may
 * spell the id of its path in upper case (UUIDs compare without regard to case, RFC 9562, and
 * the order is found either way); its callback must still find the order's timers.
 */
function keyOf(orderId: string): string {
  return orderId.toLowerCase();
}

/**
 * Arms the two placement deadlines in Postgres, in the caller's transaction. Lock order: a
 * firing timer holds its timer row and then takes the order row, so a use case that touches
 * timers does so before it locks the order (else the two would deadlock).
 */
@Injectable()
export class PlacementTimers {
  constructor(
    private readonly timers: TimerService,
    private readonly config: OrdersConfig,
  ) {}

  /** No POS picked the order up in time: it must not wait forever. */
  async armPickup(tx: Tx, tenantId: string, orderId: string, now: Date): Promise<void> {
    await this.timers.schedule<PlacementTimerPayload>(tx, {
      name: PICKUP_TIMEOUT_TIMER,
      key: keyOf(orderId),
      fireAt: new Date(now.getTime() + this.config.PLACEMENT_PICKUP_TIMEOUT_MS),
      payload: { tenantId, orderId },
    });
  }

  /** Armed once, at the first session start; returns the deadline. */
  async armPlacement(tx: Tx, tenantId: string, orderId: string, now: Date): Promise<Date> {
    const fireAt = new Date(now.getTime() + this.config.PLACEMENT_TIMEOUT_MS);
    await this.timers.schedule<PlacementTimerPayload>(tx, {
      name: PLACEMENT_TIMEOUT_TIMER,
      key: keyOf(orderId),
      fireAt,
      payload: { tenantId, orderId },
    });
    return fireAt;
  }

  /** A session is starting: the pickup deadline is over (call before locking the order). */
  async releasePickup(tx: Tx, orderId: string): Promise<void> {
    await this.timers.discard(tx, PICKUP_TIMEOUT_TIMER, keyOf(orderId));
  }

  /**
   * The order is about to be finalized: its deadlines have nothing left to do. Called before
   * the order is locked; one firing right now is waited for, and then finds it finalized.
   * Answers the placement deadline's timer as it was, if it had not fired (its grace after
   * an outage, docs/adr/0060, decides whether the deadline has passed).
   */
  async disarm(tx: Tx, orderId: string): Promise<PendingTimer | undefined> {
    await this.timers.discard(tx, PICKUP_TIMEOUT_TIMER, keyOf(orderId));
    return this.timers.cancel(tx, PLACEMENT_TIMEOUT_TIMER, keyOf(orderId));
  }

  /** The placement deadline's timer, if it has not fired: a plain read, no lock taken. */
  pendingPlacement(tx: Tx, orderId: string): Promise<PendingTimer | undefined> {
    return this.timers.pending(tx, PLACEMENT_TIMEOUT_TIMER, keyOf(orderId));
  }
}
