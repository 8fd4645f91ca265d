import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { takeTurn, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import type { SubscribableEventType } from './subscribable-events';
import { SubscriptionLimitReachedError, SubscriptionNotFoundError } from './subscription.errors';
import {
  subscriptionView,
  type CreatedSubscriptionView,
  type SubscriptionView,
} from './subscription.views';
import { WebhookSender } from './webhook-sender';
import { WebhookSubscriptionEntity, webhookSecretLabel } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

export interface CreateSubscriptionCommand {
  tenantId: string;
  clientId: string;
  url: string;
  types: SubscribableEventType[];
}

/** Create, read and delete a tenant's webhook subscriptions. */
@Injectable()
export class ManageSubscriptions {
  constructor(
    private readonly sender: WebhookSender,
    private readonly config: WebhooksConfig,
    private readonly secrets: SecretBox,
  ) {}

  async create(tx: Tx, command: CreateSubscriptionCommand): Promise<CreatedSubscriptionView> {
    await this.sender.checkUrl(command.url);
    // One creation per tenant at a time, so the limit holds under concurrent requests.
    await takeTurn(tx, `webhook-subscriptions:${command.tenantId}`);
    const repository = tx.getRepository(WebhookSubscriptionEntity);
    const limit = this.config.WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT;
    if ((await repository.count({ where: { tenantId: command.tenantId } })) >= limit) {
      throw new SubscriptionLimitReachedError(limit);
    }
    const id = randomUUID();
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const row = repository.create({
      id,
      tenantId: command.tenantId,
      url: command.url,
      types: [...new Set(command.types)],
      secretSealed: this.secrets.seal(secret, webhookSecretLabel(id)),
      status: 'active',
      consecutiveFailures: 0,
      pausedAt: null,
      pauseReason: null,
      createdBy: command.clientId,
    });
    const saved = await repository.save(row);
    return { ...subscriptionView(saved), secret };
  }

  async list(tx: Tx, tenantId: string): Promise<SubscriptionView[]> {
    const rows = await tx
      .getRepository(WebhookSubscriptionEntity)
      .find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(subscriptionView);
  }

  async get(tx: Tx, tenantId: string, id: string): Promise<SubscriptionView> {
    return subscriptionView(await this.find(tx, tenantId, id));
  }

  /** Its pending deliveries go with it; an attempt in flight finds nothing to record. */
  async delete(tx: Tx, tenantId: string, id: string): Promise<SubscriptionView> {
    const row = await this.find(tx, tenantId, id);
    await tx.getRepository(WebhookSubscriptionEntity).delete({ id: row.id, tenantId });
    return subscriptionView(row);
  }

  private async find(tx: Tx, tenantId: string, id: string): Promise<WebhookSubscriptionEntity> {
    const row = await tx
      .getRepository(WebhookSubscriptionEntity)
      .findOne({ where: { id, tenantId } });
    if (!row) throw new SubscriptionNotFoundError(id);
    return row;
  }
}
