import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SUBSCRIBABLE_EVENT_TYPES } from './subscribable-events';
import type {
  DeliveryAttempt,
  DeliveryStatus,
  WebhookDeliveryEntity,
} from './webhook-delivery.entity';
import type { SubscriptionStatus, WebhookSubscriptionEntity } from './webhook-subscription.entity';

export class SubscriptionView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://pos.example.com/comanda/events' }) url!: string;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENT_TYPES, isArray: true }) types!: string[];
  @ApiProperty({ enum: ['active', 'paused'] }) status!: SubscriptionStatus;
  @ApiProperty({ description: 'Failed attempts since the last success, over all deliveries' })
  consecutiveFailures!: number;
  @ApiProperty({ nullable: true, type: String }) pausedAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) pauseReason!: string | null;
  @ApiProperty() createdAt!: string;
}

/** Only the answer to the creation carries the secret. */
export class CreatedSubscriptionView extends SubscriptionView {
  @ApiProperty({ description: 'Signs every delivery (Comanda-Signature); shown only here' })
  secret!: string;
}

export class DeliveryAttemptView implements DeliveryAttempt {
  @ApiProperty() number!: number;
  @ApiProperty() at!: string;
  @ApiPropertyOptional({ description: 'HTTP status of the answer, absent when none came' })
  statusCode?: number;
  @ApiPropertyOptional({ description: 'Why the attempt failed; absent on success' })
  error?: string;
  @ApiProperty() durationMs!: number;
}

export class DeliveryView {
  @ApiProperty({ format: 'uuid', description: 'Sent as Comanda-Delivery-Id' }) id!: string;
  @ApiProperty({ format: 'uuid' }) subscriptionId!: string;
  @ApiProperty({ description: 'The CloudEvent id, sent as Comanda-Event-Id' }) eventId!: string;
  @ApiProperty() eventType!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed', 'paused'] }) status!: DeliveryStatus;
  @ApiProperty() attempts!: number;
  @ApiProperty({ nullable: true, type: String }) nextAttemptAt!: string | null;
  @ApiProperty({ description: 'No attempt is scheduled after this' }) retryUntil!: string;
  @ApiProperty({ nullable: true, type: String }) deliveredAt!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({
    type: [DeliveryAttemptView],
    description: 'The most recent attempts, newest last',
  })
  attemptLog!: DeliveryAttemptView[];
}

export function subscriptionView(row: WebhookSubscriptionEntity): SubscriptionView {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    status: row.status,
    consecutiveFailures: row.consecutiveFailures,
    pausedAt: row.pausedAt?.toISOString() ?? null,
    pauseReason: row.pauseReason,
    createdAt: row.createdAt.toISOString(),
  };
}

export function deliveryView(row: WebhookDeliveryEntity): DeliveryView {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    retryUntil: row.retryUntil.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    attemptLog: row.attemptLog,
  };
}
