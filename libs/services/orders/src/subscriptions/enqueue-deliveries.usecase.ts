import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CloudEvent } from '@comanda/contracts';
import { databaseNow, type Tx } from '@comanda/persistence';
import { WebhookDeliveryEntity, type DeliveryStatus } from './webhook-delivery.entity';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

/**
 * Records one delivery per subscription of the event's tenant that names its type, due at
 * once, in the caller's (inbox) transaction: the deliveries exist exactly when the event
 * counts as consumed, and the sender attempts them after commit (ADR 0043). A paused
 * subscription still gets the delivery in its log, marked `paused`, so it can be
 * redelivered later.
 */
@Injectable()
export class EnqueueDeliveries {
  constructor(private readonly config: WebhooksConfig) {}

  async execute(tx: Tx, event: CloudEvent): Promise<number> {
    const subscriptions = await tx
      .getRepository(WebhookSubscriptionEntity)
      .createQueryBuilder('s')
      .where('s.tenant_id = :tenantId', { tenantId: event.tenantid })
      .andWhere(':type = ANY(s.types)', { type: event.type })
      .getMany();
    if (subscriptions.length === 0) return 0;
    const body = JSON.stringify(event);
    const now = await databaseNow(tx);
    const retryUntil = new Date(now.getTime() + this.config.WEBHOOK_RETRY_WINDOW_MS);
    let created = 0;
    for (const subscription of subscriptions) {
      const id = randomUUID();
      const status: DeliveryStatus = subscription.status === 'active' ? 'pending' : 'paused';
      // The same event redelivered to the consumer finds its delivery already there.
      const inserted = await tx
        .createQueryBuilder()
        .insert()
        .into(WebhookDeliveryEntity)
        .values({
          id,
          tenantId: event.tenantid,
          subscriptionId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          body,
          status,
          attempts: 0,
          attemptLog: [],
          nextAttemptAt: status === 'pending' ? now : null,
          retryUntil,
          deliveredAt: null,
        })
        .orIgnore()
        .returning('id')
        .execute();
      if ((inserted.raw as unknown[]).length > 0) created += 1;
    }
    return created;
  }
}
