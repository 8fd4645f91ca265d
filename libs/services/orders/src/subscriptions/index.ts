import type { SecretBox } from '@comanda/security';
import { CreateWebhookTables1790000000000 } from './create-webhook-tables.migration';
import { IndexPendingWebhookDeliveries1794000000000 } from './index-pending-webhook-deliveries.migration';
import { LeaseWebhookDeliveries1792000000000 } from './lease-webhook-deliveries.migration';
import { sealWebhookSecrets } from './seal-webhook-secrets.migration';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';

// Webhook subscriptions: the orders service imports the module and adds these to its schema.
export { SubscriptionsModule } from './subscriptions.module';
export { WebhooksConfig } from './webhooks.config';
export { subscriptionProblem } from './subscription-problems';
export { SUBSCRIBABLE_EVENT_TYPES } from './subscribable-events';
export type { SubscribableEventType } from './subscribable-events';
export {
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER_NAME,
} from './webhook-sender';

export { webhookSecretColumn } from './webhook-subscription.entity';

export const SUBSCRIPTION_ENTITIES = [WebhookSubscriptionEntity, WebhookDeliveryEntity];
/** Run after the orders migrations: the tables live in the orders schema. */
export function subscriptionMigrations(box: SecretBox) {
  return [
    CreateWebhookTables1790000000000,
    sealWebhookSecrets(box),
    LeaseWebhookDeliveries1792000000000,
    IndexPendingWebhookDeliveries1794000000000,
  ];
}
