import { Injectable, Logger } from '@nestjs/common';
import { TimerService } from '@comanda/messaging';
import { databaseNow, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { scheduleAttempt, type DeliveryTimerPayload } from './delivery-timer';
import { afterFailure, type RetryRules } from './retry-schedule';
import { WebhookDeliveryEntity, type DeliveryAttempt } from './webhook-delivery.entity';
import { WebhookSender, type WebhookPostResult } from './webhook-sender';
import { WebhookSubscriptionEntity, webhookSecretLabel } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

/** Attempts kept in a delivery's log. */
export const ATTEMPT_LOG_SIZE = 20;

/**
 * One attempt of a delivery, run by its timer in the timer's transaction: POST, record the
 * answer, then either done, a next attempt (a new timer), given up, or the subscription
 * paused. The HTTP call happens before the row is written, so a crash in between repeats
 * the attempt: receivers deduplicate on the event id (at-least-once delivery).
 */
@Injectable()
export class AttemptDelivery {
  private readonly logger = new Logger(AttemptDelivery.name);
  private readonly rules: RetryRules;

  constructor(
    private readonly sender: WebhookSender,
    private readonly timers: TimerService,
    config: WebhooksConfig,
    private readonly secrets: SecretBox,
  ) {
    this.rules = {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
    };
  }

  async execute(tx: Tx, payload: DeliveryTimerPayload): Promise<void> {
    const deliveries = tx.getRepository(WebhookDeliveryEntity);
    const delivery = await deliveries.findOne({
      where: { id: payload.deliveryId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!delivery || delivery.status !== 'pending') return;
    const subscriptions = tx.getRepository(WebhookSubscriptionEntity);
    const subscription = await subscriptions.findOne({ where: { id: delivery.subscriptionId } });
    if (!subscription) return;
    if (subscription.status === 'paused' && !payload.manual) {
      await deliveries.update({ id: delivery.id }, { status: 'paused', nextAttemptAt: null });
      return;
    }

    const result = await this.sender.post({
      url: subscription.url,
      secret: this.secrets.open(subscription.secretSealed, webhookSecretLabel(subscription.id)),
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      body: delivery.body,
    });
    const now = await databaseNow(tx);
    delivery.attempts += 1;
    delivery.attemptLog = [...delivery.attemptLog, attemptOf(delivery.attempts, now, result)].slice(
      -ATTEMPT_LOG_SIZE,
    );

    if (result.ok) {
      delivery.status = 'succeeded';
      delivery.deliveredAt = now;
      delivery.nextAttemptAt = null;
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
    const decision =
      subscription.status === 'paused'
        ? ({ next: 'pause_subscription' } as const)
        : afterFailure(delivery.attempts, consecutive, now, delivery.retryUntil, this.rules);
    switch (decision.next) {
      case 'retry':
        delivery.nextAttemptAt = decision.at;
        await deliveries.save(delivery);
        await scheduleAttempt(this.timers, tx, { deliveryId: delivery.id }, decision.at);
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
}

function attemptOf(number: number, at: Date, result: WebhookPostResult): DeliveryAttempt {
  const attempt: DeliveryAttempt = { number, at: at.toISOString(), durationMs: result.durationMs };
  if (result.statusCode !== undefined) attempt.statusCode = result.statusCode;
  if (!result.ok) attempt.error = result.error;
  return attempt;
}
