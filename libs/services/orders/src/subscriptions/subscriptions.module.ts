import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_ENV, sealedSecretsProviders, type RuntimeEnv } from '@comanda/runtime';
import { DeliveryLog } from './delivery-log.usecase';
import { DeliverySender } from './delivery-sender';
import { DeliveryRetentionTimer } from './delivery-retention.timer';
import { EnqueueDeliveries } from './enqueue-deliveries.usecase';
import { ManageSubscriptions } from './manage-subscriptions.usecase';
import { RecordAttempt } from './record-attempt.usecase';
import { SubscriptionsController } from './subscriptions.controller';
import { LegacyDeliveryTimer } from './webhook-delivery.timer';
import { WebhookEventsConsumer } from './webhook-events.consumer';
import { WebhookSender } from './webhook-sender';
import { webhookSecretColumn } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

/**
 * Webhook subscriptions of the orders service: `/event-subscriptions`, the `orders.webhooks`
 * consumer that records deliveries and the sender that attempts them (ADR 0043).
 */
@Module({
  controllers: [SubscriptionsController, WebhookEventsConsumer],
  providers: [
    {
      provide: WebhooksConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(WebhooksConfig, env),
    },
    // Webhook secrets are sealed at rest under COMANDA_SECRETS_KEY (ADR 0040).
    ...sealedSecretsProviders({
      service: 'orders',
      columns: (schema) => [webhookSecretColumn(schema)],
    }),
    WebhookSender,
    ManageSubscriptions,
    EnqueueDeliveries,
    RecordAttempt,
    DeliverySender,
    DeliveryLog,
    LegacyDeliveryTimer,
    DeliveryRetentionTimer,
  ],
})
export class SubscriptionsModule {}
