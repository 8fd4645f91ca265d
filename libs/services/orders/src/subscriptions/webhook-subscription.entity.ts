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

  /** Needed in clear to sign every delivery; shown to the client once, at creation. */
  @Column({ type: 'text' })
  secret!: string;

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
