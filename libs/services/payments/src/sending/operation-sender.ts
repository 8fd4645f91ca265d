import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  ConcurrentWork,
  loopFailure,
  loopFailureLevel,
  MessagingLifecycle,
} from '@comanda/messaging';
import type { PaymentOperationType } from '@comanda/contracts';
import { storableExcerpt } from '@comanda/http';
import { OutboundHttp, signBody } from '@comanda/outbound';
import { DataSource } from 'typeorm';
import { schemaOf } from '@comanda/persistence';
import { PaymentsConfig } from '../payments.config';
import { MerchantRepository } from '../persistence/merchant.repository';
import { PaymentRepository } from '../persistence/payment.repository';
import { ApplyPaymentTrigger } from '../usecases/apply-trigger/apply-payment-trigger.usecase';

interface ClaimedOperation {
  id: string;
  payment_id: string;
  type: PaymentOperationType;
  merchant_id: string;
  body: string;
  send_attempts: number;
  partner_url: string | null;
  signing_secret_sealed: string | null;
  /** The secret a save replaced, while its grace lasts by the database's clock (ADR 0070). */
  previous_secret_sealed: string | null;
}

/** Operations claimed at most in one look. */
const CLAIM_BATCH = 16;

type SendResult =
  { kind: 'accepted' } | { kind: 'rejected'; reason: string } | { kind: 'retry'; error: string };

/**
 * Sends recorded operations to partners, outside any transaction. An operation is claimed
 * with a lease (SKIP LOCKED, so replicas share the work), posted, and its outcome recorded
 * in a new transaction. A crash between the post and the record lets the lease run out and
 * the operation is posted again with the same body and `Idempotency-Key`, which the partner
 * deduplicates: an operation is never lost and never decided twice. Network errors and 5xx
 * are retried with back-off until the operation's deadline; the timeout timer decides then.
 * Sends run side by side, up to `PAYMENT_SEND_CONCURRENCY`, and each holds one slot while its
 * partner answers. One partner address holds at most `PAYMENT_SEND_CONCURRENCY_PER_PARTNER` of
 * them: a partner that hangs delays its own operations, never another partner's.
 */
@Injectable()
export class OperationSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OperationSender.name);
  private readonly leaseMs: number;
  private readonly work: ConcurrentWork<ClaimedOperation>;
  /** Sends under way per partner address (a merchant's `partner_url`). */
  private readonly inFlight = new Map<string, number>();
  /** The most sends one partner address may have under way. */
  private readonly perPartner: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbound: OutboundHttp,
    private readonly payments: PaymentRepository,
    private readonly merchants: MerchantRepository,
    private readonly apply: ApplyPaymentTrigger,
    private readonly config: PaymentsConfig,
    @Optional() private readonly messaging?: MessagingLifecycle,
  ) {
    this.leaseMs = config.PAYMENT_SEND_REQUEST_TIMEOUT_MS + 5_000;
    this.perPartner = Math.min(
      config.PAYMENT_SEND_CONCURRENCY,
      config.PAYMENT_SEND_CONCURRENCY_PER_PARTNER ?? Math.ceil(config.PAYMENT_SEND_CONCURRENCY / 4),
    );
    this.work = new ConcurrentWork({
      concurrency: config.PAYMENT_SEND_CONCURRENCY,
      claimBatch: CLAIM_BATCH,
      pollMs: config.PAYMENT_SEND_POLL_MS,
      claim: (limit) => this.claim(limit),
      run: (operation, stopping) =>
        this.sendOne(operation, stopping).finally(() => this.ended(operation)),
      onError: (error, operation, failedLooks = 1) =>
        this.logger[loopFailureLevel(error)](
          operation
            ? `sending operation ${operation.id} failed: ${describe(error)}`
            : loopFailure('sending payment operations', describe(error), failedLooks),
        ),
    });
  }

  onApplicationBootstrap(): void {
    this.work.start();
    this.messaging?.watch('operations', () => this.work.state());
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.work.stop();
    await this.outbound.close();
  }

  /**
   * Claims due operations for up to `limit` free slots, none for a partner address whose
   * sends already fill its share. The few a look claims beyond a share (a batch of one
   * partner's) are given back at once, to be claimed when it has room again.
   */
  private async claim(limit: number): Promise<ClaimedOperation[]> {
    const schema = schemaOf(this.dataSource);
    const full = [...this.inFlight].filter(([, n]) => n >= this.perPartner).map(([url]) => url);
    const [claimed]: [ClaimedOperation[], number] = await this.dataSource.query(
      `UPDATE "${schema}"."payment_operations" o
       SET locked_until = now() + $1 * interval '1 millisecond', send_attempts = send_attempts + 1
       FROM (
         -- The merchant's address and secrets come from the join that skips full partners.
         SELECT d.id, m.partner_url, m.signing_secret_sealed,
                CASE WHEN m.previous_secret_until > now() THEN m.previous_secret_sealed END
                  AS previous_secret_sealed
         FROM "${schema}"."payment_operations" d
         LEFT JOIN "${schema}"."merchants" m ON m.id = d.merchant_id
         WHERE d.status = 'sending' AND d.next_send_at <= now() AND d.deadline_at > now()
           AND (d.locked_until IS NULL OR d.locked_until < now())
           AND (m.partner_url IS NULL OR m.partner_url <> ALL($3::text[]))
         ORDER BY d.next_send_at LIMIT $2
         FOR UPDATE OF d SKIP LOCKED
       ) due
       WHERE o.id = due.id
       RETURNING o.id, o.payment_id, o.type, o.merchant_id, o.body, o.send_attempts,
         due.partner_url, due.signing_secret_sealed, due.previous_secret_sealed`,
      [this.leaseMs, limit, full],
    );
    const sent: ClaimedOperation[] = [];
    const over: string[] = [];
    for (const operation of claimed) {
      const url = operation.partner_url;
      // No address: the send ends at once, as a retry, and holds no partner's share.
      if (url === null) {
        sent.push(operation);
        continue;
      }
      const under = this.inFlight.get(url) ?? 0;
      if (under >= this.perPartner) {
        over.push(operation.id);
        continue;
      }
      this.inFlight.set(url, under + 1);
      sent.push(operation);
    }
    if (over.length > 0) await this.giveBack(schema, over);
    return sent;
  }

  /** Operations claimed beyond their partner's share: unclaimed, their attempt not counted. */
  private async giveBack(schema: string, ids: string[]): Promise<void> {
    try {
      await this.dataSource.query(
        `UPDATE "${schema}"."payment_operations"
         SET locked_until = NULL, send_attempts = send_attempts - 1
         WHERE id = ANY($1::uuid[]) AND status = 'sending'`,
        [ids],
      );
    } catch (error) {
      // Their lease runs out and they are claimed again then: late, not lost.
      this.logger.warn(`giving back ${ids.length} operation(s) failed: ${describe(error)}`);
    }
  }

  private ended(operation: ClaimedOperation): void {
    const url = operation.partner_url;
    if (url === null) return;
    const under = (this.inFlight.get(url) ?? 1) - 1;
    if (under > 0) this.inFlight.set(url, under);
    else this.inFlight.delete(url);
  }

  private async sendOne(operation: ClaimedOperation, stopping: AbortSignal): Promise<void> {
    const result = await this.post(operation, stopping);
    // Cut short by a shutdown: the lease runs out and the same operation is posted again.
    if (stopping.aborted) return;
    const schema = schemaOf(this.dataSource);
    await this.dataSource.transaction(async (tx) => {
      switch (result.kind) {
        case 'accepted':
          await tx.query(
            `UPDATE "${schema}"."payment_operations"
             SET status = 'accepted', accepted_at = now(), locked_until = NULL
             WHERE id = $1 AND status = 'sending'`,
            [operation.id],
          );
          break;
        case 'rejected': {
          const decision = await this.apply.execute(tx, operation.payment_id, {
            kind: 'operation_rejected',
            operationId: operation.id,
            operationType: operation.type,
            reason: result.reason,
          });
          if (!decision?.applied) {
            await this.payments.finishOperation(
              tx,
              operation.id,
              'rejected',
              new Date(),
              result.reason,
            );
          }
          await tx.query(
            `UPDATE "${schema}"."payment_operations" SET last_error = $2 WHERE id = $1`,
            [operation.id, result.reason],
          );
          break;
        }
        case 'retry': {
          const backoff = Math.min(
            this.config.PAYMENT_SEND_RETRY_MAX_MS,
            this.config.PAYMENT_SEND_RETRY_BASE_MS * 2 ** Math.min(operation.send_attempts - 1, 20),
          );
          this.logger.warn(
            `operation ${operation.id} not accepted (${result.error}); retry in ${backoff} ms`,
          );
          await tx.query(
            `UPDATE "${schema}"."payment_operations"
             SET last_error = $2, locked_until = NULL,
                 next_send_at = now() + $3 * interval '1 millisecond'
             WHERE id = $1 AND status = 'sending'`,
            [operation.id, result.error, backoff],
          );
          break;
        }
      }
    });
  }

  private async post(operation: ClaimedOperation, signal: AbortSignal): Promise<SendResult> {
    if (!operation.partner_url || operation.signing_secret_sealed === null) {
      return { kind: 'retry', error: 'the merchant of the operation is not configured' };
    }
    // While a secret rollover lasts, signed with both: a partner holding either verifies it.
    const secrets: string[] = [];
    try {
      secrets.push(
        this.merchants.openSecret(operation.merchant_id, operation.signing_secret_sealed),
      );
      if (operation.previous_secret_sealed !== null) {
        secrets.push(
          this.merchants.openPreviousSecret(
            operation.merchant_id,
            operation.previous_secret_sealed,
          ),
        );
      }
    } catch (error) {
      // Another COMANDA_SECRETS_KEY than the one it was sealed with: nothing to sign with.
      return { kind: 'retry', error: describe(error) };
    }
    try {
      const response = await this.outbound.post(operation.partner_url, {
        body: operation.body,
        headers: {
          'content-type': 'application/json',
          'idempotency-key': operation.id,
          'comanda-signature': signBody(secrets, operation.body),
        },
        timeoutMs: this.config.PAYMENT_SEND_REQUEST_TIMEOUT_MS,
        signal,
      });
      if (response.status >= 200 && response.status < 300) return { kind: 'accepted' };
      // 400: the partner will send no event for this request (rule 7); waiting is pointless.
      if (response.status === 400) {
        return {
          kind: 'rejected',
          // The partner's words, as far as PostgreSQL's text can hold them (no NUL).
          reason: `partner answered 400: ${storableExcerpt(response.body, 500)}`,
        };
      }
      return { kind: 'retry', error: `partner answered ${response.status}` };
    } catch (error) {
      return { kind: 'retry', error: describe(error) };
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
