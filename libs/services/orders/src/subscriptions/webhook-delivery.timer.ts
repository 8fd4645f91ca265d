import { Injectable } from '@nestjs/common';
import { OnTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { AttemptDelivery } from './attempt-delivery.usecase';
import { DELIVERY_TIMER, type DeliveryTimerPayload } from './delivery-timer';

/** Runs the due attempt of a delivery in the transaction that marks its timer fired. */
@Injectable()
export class WebhookDeliveryTimer {
  constructor(private readonly attempt: AttemptDelivery) {}

  @OnTimer(DELIVERY_TIMER)
  async fire(payload: DeliveryTimerPayload, tx: Tx): Promise<void> {
    await this.attempt.execute(tx, payload);
  }
}
