import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * `pending`: an attempt is scheduled; `succeeded`: a 2xx answer; `failed`: retried for the
 * whole window without success; `paused`: not attempted further because the subscription is
 * paused. `redeliver` turns any of them back into `pending`.
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'paused';

export interface DeliveryAttempt {
  /** 1 for the first. */
  number: number;
  at: string;
  /** HTTP status of the answer; absent when none came (timeout, refused, unreachable). */
  statusCode?: number;
  /** Why the attempt counts as failed; absent on success. */
  error?: string;
  durationMs: number;
}

/** One event for one subscription, with its attempts. */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_subscription', ['subscriptionId', 'createdAt'])
@Index('webhook_deliveries_event', ['subscriptionId', 'eventId'], { unique: true })
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'subscription_id', type: 'uuid' })
  subscriptionId!: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: string;

  /** The CloudEvent exactly as sent (structured mode); every attempt signs these bytes. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  @Column({ type: 'integer' })
  attempts!: number;

  /** The most recent attempts, newest last (bounded). */
  @Column({ name: 'attempt_log', type: 'jsonb' })
  attemptLog!: DeliveryAttempt[];

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  /** No attempt is scheduled after this; reset by a redelivery. */
  @Column({ name: 'retry_until', type: 'timestamptz' })
  retryUntil!: Date;

  /**
   * A redelivery asked by a client: attempted even while the subscription is paused. Cleared
   * by the attempt it asked for.
   */
  @Column({ type: 'boolean', default: false })
  manual!: boolean;

  /** While set and ahead, a sender is attempting the delivery (ADR 0043). */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  /** Names the claim of the attempt in flight; a redelivery clears it. */
  @Column({ name: 'lease_id', type: 'uuid', nullable: true })
  leaseId!: string | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
