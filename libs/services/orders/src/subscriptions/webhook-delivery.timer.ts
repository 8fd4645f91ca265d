import { Injectable } from '@nestjs/common';
import { OnTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** The timer that attempted a delivery before ADR 0043, keyed by the delivery id. */
export const LEGACY_DELIVERY_TIMER = 'webhook-delivery';

/**
 * Fires the delivery timers a replica of the previous version armed (during a rolling
 * deploy, or pending at the upgrade) so none stays overdue. The delivery's own row already
 * says when it is due and the sender attempts it; only a client's redelivery, which the old
 * version kept in the timer's payload, is carried over.
 */
@Injectable()
export class LegacyDeliveryTimer {
  @OnTimer(LEGACY_DELIVERY_TIMER)
  async fire(payload: { deliveryId?: unknown; manual?: unknown }, tx: Tx): Promise<void> {
    if (payload.manual !== true || typeof payload.deliveryId !== 'string') return;
    await tx
      .getRepository(WebhookDeliveryEntity)
      .update({ id: payload.deliveryId, status: 'pending' }, { manual: true });
  }
}
