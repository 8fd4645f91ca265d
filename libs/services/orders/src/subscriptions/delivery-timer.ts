import type { TimerService } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';

/** The durable timer that runs the next attempt of a delivery, keyed by the delivery id. */
export const DELIVERY_TIMER = 'webhook-delivery';

export interface DeliveryTimerPayload extends Record<string, unknown> {
  deliveryId: string;
  /** A redelivery asked by a client: attempted even while the subscription is paused. */
  manual?: boolean;
}

export function scheduleAttempt(
  timers: TimerService,
  tx: Tx,
  payload: DeliveryTimerPayload,
  at: Date,
): Promise<void> {
  return timers.schedule(tx, {
    name: DELIVERY_TIMER,
    key: payload.deliveryId,
    fireAt: at,
    payload,
  });
}
