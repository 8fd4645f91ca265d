import { Injectable } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { DeliveryNotFoundError, SubscriptionNotFoundError } from './subscription.errors';
import { deliveryView, type DeliveryView } from './subscription.views';
import { WebhookDeliveryEntity, type DeliveryStatus } from './webhook-delivery.entity';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

export interface DeliveryQuery {
  status?: DeliveryStatus;
  limit: number;
  offset: number;
}

/** The deliveries of a subscription, newest first, and a client's redelivery of one. */
@Injectable()
export class DeliveryLog {
  constructor(private readonly config: WebhooksConfig) {}

  async list(
    tx: Tx,
    tenantId: string,
    subscriptionId: string,
    query: DeliveryQuery,
  ): Promise<DeliveryView[]> {
    await this.subscription(tx, tenantId, subscriptionId);
    const rows = await tx.getRepository(WebhookDeliveryEntity).find({
      where: { tenantId, subscriptionId, ...(query.status ? { status: query.status } : {}) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
    return rows.map(deliveryView);
  }

  /**
   * Sends the delivery again now (the sender's next look), with the same body and delivery
   * id and a fresh signature, and retries it for a new window; attempted even while the
   * subscription is paused (a success resumes it).
   */
  async redeliver(
    tx: Tx,
    tenantId: string,
    subscriptionId: string,
    deliveryId: string,
  ): Promise<DeliveryView> {
    await this.subscription(tx, tenantId, subscriptionId);
    const deliveries = tx.getRepository(WebhookDeliveryEntity);
    const delivery = await deliveries.findOne({
      where: { id: deliveryId, subscriptionId, tenantId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!delivery) throw new DeliveryNotFoundError(subscriptionId, deliveryId);
    const now = await databaseNow(tx);
    delivery.status = 'pending';
    delivery.nextAttemptAt = now;
    delivery.retryUntil = new Date(now.getTime() + this.config.WEBHOOK_RETRY_WINDOW_MS);
    delivery.manual = true;
    // An attempt in flight keeps its lease (no second post meanwhile) but no longer decides
    // what follows: its record releases the delivery to the sender at once.
    delivery.leaseId = null;
    await deliveries.save(delivery);
    return deliveryView(delivery);
  }

  private async subscription(tx: Tx, tenantId: string, id: string): Promise<void> {
    const found = await tx
      .getRepository(WebhookSubscriptionEntity)
      .exists({ where: { id, tenantId } });
    if (!found) throw new SubscriptionNotFoundError(id);
  }
}
