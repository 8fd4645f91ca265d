import type { SealedColumn } from '@comanda/security';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type SubscriptionStatus = 'active' | 'paused';

/** A tenant's webhook: where order events are POSTed, and the secret they are signed with. */
@Entity({ name: 'webhook_subscriptions' })
@Index('webhook_subscriptions_tenant', ['tenantId', 'createdAt'])
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  types!: string[];

  /**
   * The secret every delivery is signed with, shown to the client once, at creation. Sealed
   * under COMANDA_SECRETS_KEY, bound to the subscription (ADR 0040): opened only to sign.
   */
  @Column({ name: 'secret_sealed', type: 'text' })
  secretSealed!: string;

  @Column({ type: 'text' })
  status!: SubscriptionStatus;

  /** Failed attempts since the last successful one, over all deliveries. */
  @Column({ name: 'consecutive_failures', type: 'integer' })
  consecutiveFailures!: number;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt!: Date | null;

  @Column({ name: 'pause_reason', type: 'text', nullable: true })
  pauseReason!: string | null;

  /** Client id of the token that created it. */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** What a sealed secret is bound to: a value copied to another subscription's row does not open. */
export function webhookSecretLabel(subscriptionId: string): string {
  return `orders.webhook_subscriptions:${subscriptionId}`;
}

/** The sealed column, for the migration that sealed it and for re-sealing after a key change. */
export function webhookSecretColumn(schema: string): SealedColumn {
  return {
    table: `"${schema}"."webhook_subscriptions"`,
    key: 'id',
    sealed: 'secret_sealed',
    label: webhookSecretLabel,
  };
}
