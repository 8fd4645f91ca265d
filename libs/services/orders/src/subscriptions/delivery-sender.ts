import { randomUUID } from 'node:crypto';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { describeError } from '@comanda/messaging';
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
  private timer: NodeJS.Timeout | undefined;
  /** The look for due deliveries under way, if any. */
  private running: Promise<void> | undefined;
  /** A slot came free during a look: look again when it ends. */
  private lookAgain = false;
  private readonly sending = new Set<Promise<void>>();
  private stopped = true;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly sender: WebhookSender,
    private readonly record: RecordAttempt,
    private readonly config: WebhooksConfig,
    private readonly secrets: SecretBox,
  ) {
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.idle();
  }

  /** Resolves once every attempt in flight has been recorded. */
  async idle(): Promise<void> {
    while (this.sending.size > 0) await Promise.all(this.sending);
  }

  /**
   * Claims due deliveries, as many as there are free slots, and starts attempting each;
   * answers how many it claimed without waiting for them (each frees its slot and looks
   * again when it ends).
   */
  async sendDue(): Promise<number> {
    const free = Math.min(CLAIM_BATCH, this.config.WEBHOOK_SEND_CONCURRENCY - this.sending.size);
    if (free <= 0) return 0;
    const claimed = await this.unitOfWork.run((tx) => this.claim(tx, free));
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) => {
          // The lease runs out and the delivery is attempted again.
          this.logger.error(`webhook delivery ${delivery.id} failed: ${describeError(error)}`);
        })
        .finally(() => {
          this.sending.delete(attempt);
          this.wake();
        });
      this.sending.add(attempt);
    }
    return claimed.length;
  }

  private async claim(tx: Tx, limit: number): Promise<ClaimedRow[]> {
    const schema = schemaOf(tx);
    const deliveries = `"${schema}"."webhook_deliveries"`;
    // The earliest due delivery of each subscription with nothing in flight, then the
    // earliest of those: a subscription whose endpoint hangs holds one slot at most.
    const [rows]: [ClaimedRow[], number] = await tx.query(
      `UPDATE ${deliveries} d
       SET locked_until = now() + $1 * interval '1 millisecond', lease_id = $2
       FROM (
         SELECT id FROM ${deliveries}
         WHERE status = 'pending' AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
           AND id IN (
             SELECT DISTINCT ON (c.subscription_id) c.id FROM ${deliveries} c
             WHERE c.status = 'pending' AND c.next_attempt_at <= now()
               AND (c.locked_until IS NULL OR c.locked_until < now())
               AND NOT EXISTS (
                 SELECT 1 FROM ${deliveries} busy
                 WHERE busy.subscription_id = c.subscription_id AND busy.locked_until >= now())
             ORDER BY c.subscription_id, c.next_attempt_at, c.id)
         ORDER BY next_attempt_at
         LIMIT $3
         FOR UPDATE SKIP LOCKED
       ) claimed, "${schema}"."webhook_subscriptions" s
       WHERE d.id = claimed.id AND s.id = d.subscription_id
       RETURNING d.id, d.lease_id, d.subscription_id, d.event_id, d.event_type, d.body, d.manual,
         s.url, s.secret_sealed, s.status AS subscription_status`,
      [this.leaseMs, randomUUID(), limit],
    );
    return rows;
  }

  private async attempt(row: ClaimedRow): Promise<void> {
    const claim: ClaimedDelivery = { id: row.id, leaseId: row.lease_id };
    if (row.subscription_status === 'paused' && !row.manual) {
      await this.unitOfWork.run((tx) => this.record.notSent(tx, claim));
      return;
    }
    const result = await this.post(row);
    await this.unitOfWork.run((tx) => this.record.execute(tx, claim, result));
  }

  private async post(row: ClaimedRow): Promise<WebhookPostResult> {
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
    });
  }

  /** A slot came free: look for due deliveries now, or as soon as the look under way ends. */
  private wake(): void {
    if (this.running) this.lookAgain = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.sendDue().then(
        (claimed) => this.afterLook(claimed > 0),
        (error: unknown) => {
          this.logger.error(`looking for due webhook deliveries failed: ${describeError(error)}`);
          this.afterLook(false);
        },
      );
    }, delayMs);
  }

  private afterLook(claimedSome: boolean): void {
    this.running = undefined;
    const again = claimedSome || this.lookAgain;
    this.lookAgain = false;
    const full = this.sending.size >= this.config.WEBHOOK_SEND_CONCURRENCY;
    this.schedule(again && !full ? 0 : this.config.WEBHOOK_SEND_POLL_MS);
  }
}
