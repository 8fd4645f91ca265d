import { Injectable, Logger } from '@nestjs/common';
import { databaseNow, type Tx } from '@comanda/persistence';
import { afterFailure, type RetryRules } from './retry-schedule';
import { WebhookDeliveryEntity, type DeliveryAttempt } from './webhook-delivery.entity';
import type { WebhookPostResult } from './webhook-sender';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

/** Attempts kept in a delivery's log. */
export const ATTEMPT_LOG_SIZE = 20;

/** A delivery as the sender claimed it: what it posts, and the lease that names the claim. */
export interface ClaimedDelivery {
  id: string;
  leaseId: string;
}

/**
 * Records what became of one claimed attempt, in the caller's transaction: done, a next
 * attempt, given up, or the subscription paused. The post happened before, outside any
 * transaction (ADR 0043); a crash in between lets the lease run out and the attempt is made
 * again: receivers deduplicate on the event id (at-least-once delivery).
 */
@Injectable()
export class RecordAttempt {
  private readonly logger = new Logger(RecordAttempt.name);
  private readonly rules: RetryRules;

  constructor(config: WebhooksConfig) {
    this.rules = {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
    };
  }

  /**
   * The claim found its subscription paused and nothing was posted: the delivery stops
   * (`paused`), unless a client asked for it meanwhile or the subscription was resumed; then
   * it is released for the next look.
   */
  async notSent(tx: Tx, claim: ClaimedDelivery): Promise<void> {
    const found = await this.lockOwn(tx, claim);
    if (!found) return;
    const { delivery, subscription } = found;
    if (subscription.status === 'paused' && !delivery.manual) {
      delivery.status = 'paused';
      delivery.nextAttemptAt = null;
    }
    release(delivery);
    await tx.getRepository(WebhookDeliveryEntity).save(delivery);
  }

  async execute(tx: Tx, claim: ClaimedDelivery, result: WebhookPostResult): Promise<void> {
    const deliveries = tx.getRepository(WebhookDeliveryEntity);
    const delivery = await deliveries.findOne({
      where: { id: claim.id },
      lock: { mode: 'pessimistic_write' },
    });
    // Deleted with its subscription while the post was under way.
    if (!delivery) return;
    const subscriptions = tx.getRepository(WebhookSubscriptionEntity);
    const subscription = await subscriptions.findOne({ where: { id: delivery.subscriptionId } });
    if (!subscription) return;

    const now = await databaseNow(tx);
    delivery.attempts += 1;
    delivery.attemptLog = [...delivery.attemptLog, attemptOf(delivery.attempts, now, result)].slice(
      -ATTEMPT_LOG_SIZE,
    );
    // A redelivery asked meanwhile (it cleared the lease id) or a claim made after this
    // one's lease ran out owns the delivery now: this attempt is logged and counted for the
    // subscription, and decides nothing about the delivery.
    const ours = delivery.leaseId === claim.leaseId && delivery.status === 'pending';
    if (ours || delivery.leaseId === null) release(delivery);
    if (ours) delivery.manual = false;

    if (result.ok) {
      if (ours) {
        delivery.status = 'succeeded';
        delivery.deliveredAt = now;
        delivery.nextAttemptAt = null;
      }
      await deliveries.save(delivery);
      // An endpoint that answers again is healthy: a manual redelivery resumes a paused one.
      await subscriptions.update(
        { id: subscription.id },
        { consecutiveFailures: 0, status: 'active', pausedAt: null, pauseReason: null },
      );
      return;
    }

    const counted = await tx
      .createQueryBuilder()
      .update(WebhookSubscriptionEntity)
      .set({ consecutiveFailures: () => 'consecutive_failures + 1' })
      .where('id = :id', { id: subscription.id })
      .returning('consecutive_failures')
      .execute();
    const consecutive =
      (counted.raw as Array<{ consecutive_failures: number }>)[0]?.consecutive_failures ?? 1;
    if (!ours) {
      await deliveries.save(delivery);
      return;
    }
    const decision =
      subscription.status === 'paused'
        ? ({ next: 'pause_subscription' } as const)
        : afterFailure(delivery.attempts, consecutive, now, delivery.retryUntil, this.rules);
    switch (decision.next) {
      case 'retry':
        delivery.nextAttemptAt = decision.at;
        await deliveries.save(delivery);
        return;
      case 'give_up':
        delivery.status = 'failed';
        delivery.nextAttemptAt = null;
        await deliveries.save(delivery);
        return;
      case 'pause_subscription':
        delivery.status = 'paused';
        delivery.nextAttemptAt = null;
        await deliveries.save(delivery);
        if (subscription.status !== 'paused') {
          this.logger.warn(
            `webhook subscription ${subscription.id} of tenant ${subscription.tenantId} paused after ${consecutive} failed attempts`,
          );
          await subscriptions.update(
            { id: subscription.id },
            {
              status: 'paused',
              pausedAt: now,
              pauseReason: `${consecutive} consecutive failed attempts; last: ${result.error}`,
            },
          );
        }
        return;
    }
  }

  /** The delivery, locked, and its subscription, while the claim is still the delivery's. */
  private async lockOwn(
    tx: Tx,
    claim: ClaimedDelivery,
  ): Promise<
    { delivery: WebhookDeliveryEntity; subscription: WebhookSubscriptionEntity } | undefined
  > {
    const delivery = await tx.getRepository(WebhookDeliveryEntity).findOne({
      where: { id: claim.id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!delivery || delivery.leaseId !== claim.leaseId || delivery.status !== 'pending') {
      return undefined;
    }
    const subscription = await tx
      .getRepository(WebhookSubscriptionEntity)
      .findOne({ where: { id: delivery.subscriptionId } });
    return subscription ? { delivery, subscription } : undefined;
  }
}

function release(delivery: WebhookDeliveryEntity): void {
  delivery.lockedUntil = null;
  delivery.leaseId = null;
}

function attemptOf(number: number, at: Date, result: WebhookPostResult): DeliveryAttempt {
  const attempt: DeliveryAttempt = { number, at: at.toISOString(), durationMs: result.durationMs };
  if (result.statusCode !== undefined) attempt.statusCode = result.statusCode;
  if (!result.ok) attempt.error = result.error;
  return attempt;
}
