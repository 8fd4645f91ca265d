import { randomUUID } from 'node:crypto';
import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  ConcurrentWork,
  describeError,
  loopFailure,
  loopFailureLevel,
  MessagingLifecycle,
} from '@comanda/messaging';
import { schemaOf, UnitOfWork, type Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { RecordAttempt, type ClaimedDelivery } from './record-attempt.usecase';
import { WebhookSender, type WebhookPostResult } from './webhook-sender';
import { webhookSecretLabel } from './webhook-subscription.entity';
import { WebhooksConfig } from './webhooks.config';

interface ClaimedRow {
  id: string;
  lease_id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  body: string;
  manual: boolean;
  url: string;
  secret_sealed: string;
  subscription_status: 'active' | 'paused';
}

/** Deliveries claimed at most in one look. */
const CLAIM_BATCH = 16;
/** What a lease covers beyond the post: recording its outcome. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Attempts due deliveries outside any transaction (ADR 0043). A look claims due deliveries
 * with a lease in one short statement (SKIP LOCKED, so replicas share the work), at most one
 * per subscription that has none in flight; each is posted with no database connection held,
 * and its outcome recorded by `RecordAttempt` in a new short transaction. A crash between the
 * post and the record lets the lease run out and the attempt is made again with the same
 * body and ids, which receivers deduplicate. Posts run side by side, up to
 * `WEBHOOK_SEND_CONCURRENCY`; each holds one slot while its endpoint answers, so an endpoint
 * that hangs delays its own subscription's deliveries, never another's, and never the
 * service's timers or requests.
 */
@Injectable()
export class DeliverySender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliverySender.name);
  private readonly leaseMs: number;
  private readonly work: ConcurrentWork<ClaimedRow>;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly sender: WebhookSender,
    private readonly record: RecordAttempt,
    config: WebhooksConfig,
    private readonly secrets: SecretBox,
    @Optional() private readonly messaging?: MessagingLifecycle,
  ) {
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
    this.work = new ConcurrentWork({
      concurrency: config.WEBHOOK_SEND_CONCURRENCY,
      claimBatch: CLAIM_BATCH,
      pollMs: config.WEBHOOK_SEND_POLL_MS,
      claim: (limit) => this.unitOfWork.run((tx) => this.claim(tx, limit)),
      run: (delivery, stopping) => this.attempt(delivery, stopping),
      // A failed attempt: the lease runs out and the delivery is attempted again.
      onError: (error, delivery, failedLooks = 1) =>
        this.logger[loopFailureLevel(error)](
          delivery
            ? `webhook delivery ${delivery.id} failed: ${describeError(error)}`
            : loopFailure('looking for due webhook deliveries', describeError(error), failedLooks),
        ),
    });
  }

  onApplicationBootstrap(): void {
    this.work.start();
    // A claim that hangs or keeps failing turns readiness red, as the timer poller's did.
    this.messaging?.watch('webhooks', () => this.work.state());
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.work.stop();
  }

  /**
   * Claims due deliveries for the free slots and starts attempting each; answers how many it
   * claimed without waiting for them.
   */
  sendDue(): Promise<number> {
    return this.work.claimOnce();
  }

  /** Resolves once every attempt in flight has been recorded. */
  idle(): Promise<void> {
    return this.work.idle();
  }

  private async claim(tx: Tx, limit: number): Promise<ClaimedRow[]> {
    const schema = schemaOf(tx);
    const deliveries = `"${schema}"."webhook_deliveries"`;
    // The earliest due delivery of each subscription with nothing in flight, then the
    // earliest of those: a subscription whose endpoint hangs holds one slot at most. The
    // subscriptions with pending deliveries are walked one index step each (`waiting`), and
    // each one's earliest is read from the same index, so a claim costs as many steps as
    // there are such subscriptions, however long their backlogs. A delivery another claim
    // holds locked is skipped, and its subscription with it; the lock re-checks `x`'s state.
    const [rows]: [ClaimedRow[], number] = await tx.query(
      `UPDATE ${deliveries} d
       SET locked_until = now() + $1 * interval '1 millisecond', lease_id = $2
       FROM (
         WITH RECURSIVE waiting (subscription_id) AS (
           (SELECT subscription_id FROM ${deliveries}
            WHERE status = 'pending' ORDER BY subscription_id LIMIT 1)
           UNION ALL
           SELECT (SELECT c.subscription_id FROM ${deliveries} c
                   WHERE c.status = 'pending' AND c.subscription_id > w.subscription_id
                   ORDER BY c.subscription_id LIMIT 1)
           FROM waiting w WHERE w.subscription_id IS NOT NULL)
         SELECT x.id FROM waiting w
         CROSS JOIN LATERAL (
           SELECT c.id, c.next_attempt_at FROM ${deliveries} c
           WHERE c.subscription_id = w.subscription_id AND c.status = 'pending'
             AND c.next_attempt_at <= now()
             AND (c.locked_until IS NULL OR c.locked_until < now())
           ORDER BY c.next_attempt_at, c.id LIMIT 1) earliest
         JOIN ${deliveries} x ON x.id = earliest.id AND x.status = 'pending'
           AND x.next_attempt_at <= now() AND (x.locked_until IS NULL OR x.locked_until < now())
         WHERE NOT EXISTS (
           SELECT 1 FROM ${deliveries} busy
           WHERE busy.subscription_id = w.subscription_id AND busy.locked_until >= now())
         ORDER BY earliest.next_attempt_at
         LIMIT $3
         FOR UPDATE OF x SKIP LOCKED
       ) claimed, "${schema}"."webhook_subscriptions" s
       WHERE d.id = claimed.id AND s.id = d.subscription_id
       RETURNING d.id, d.lease_id, d.subscription_id, d.event_id, d.event_type, d.body, d.manual,
         s.url, s.secret_sealed, s.status AS subscription_status`,
      [this.leaseMs, randomUUID(), limit],
    );
    return rows;
  }

  private async attempt(row: ClaimedRow, stopping: AbortSignal): Promise<void> {
    const claim: ClaimedDelivery = { id: row.id, leaseId: row.lease_id };
    if (row.subscription_status === 'paused' && !row.manual) {
      await this.unitOfWork.run((tx) => this.record.notSent(tx, claim));
      return;
    }
    const result = await this.post(row, stopping);
    // Cut short by a shutdown: not an attempt of the endpoint; the lease runs out and the
    // delivery is attempted again.
    if (stopping.aborted) return;
    await this.unitOfWork.run((tx) => this.record.execute(tx, claim, result));
  }

  private async post(row: ClaimedRow, signal: AbortSignal): Promise<WebhookPostResult> {
    let secret: string;
    try {
      secret = this.secrets.open(row.secret_sealed, webhookSecretLabel(row.subscription_id));
    } catch (error) {
      // Sealed under another COMANDA_SECRETS_KEY: nothing to sign with, a failed attempt.
      return { ok: false, error: `not signed: ${describeError(error)}`, durationMs: 0 };
    }
    return this.sender.post({
      url: row.url,
      secret,
      deliveryId: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      body: row.body,
      signal,
    });
  }
}
