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
 * partner answers: a partner that hangs delays its own operations, never another merchant's.
 */
@Injectable()
export class OperationSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OperationSender.name);
  private readonly leaseMs: number;
  private readonly work: ConcurrentWork<ClaimedOperation>;

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
    this.work = new ConcurrentWork({
      concurrency: config.PAYMENT_SEND_CONCURRENCY,
      claimBatch: CLAIM_BATCH,
      pollMs: config.PAYMENT_SEND_POLL_MS,
      claim: (limit) => this.claim(limit),
      run: (operation, stopping) => this.sendOne(operation, stopping),
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

  private async claim(limit: number): Promise<ClaimedOperation[]> {
    const schema = schemaOf(this.dataSource);
    const [claimed]: [ClaimedOperation[], number] = await this.dataSource.query(
      `UPDATE "${schema}"."payment_operations" o
       SET locked_until = now() + $1 * interval '1 millisecond', send_attempts = send_attempts + 1
       FROM (
         SELECT id FROM "${schema}"."payment_operations"
         WHERE status = 'sending' AND next_send_at <= now() AND deadline_at > now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_send_at LIMIT $2
         FOR UPDATE SKIP LOCKED
       ) due
       WHERE o.id = due.id
       RETURNING o.id, o.payment_id, o.type, o.merchant_id, o.body, o.send_attempts,
         (SELECT partner_url FROM "${schema}"."merchants" m WHERE m.id = o.merchant_id) AS partner_url,
         (SELECT signing_secret_sealed FROM "${schema}"."merchants" m WHERE m.id = o.merchant_id) AS signing_secret_sealed`,
      [this.leaseMs, limit],
    );
    return claimed;
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
    let secret: string;
    try {
      secret = this.merchants.openSecret(operation.merchant_id, operation.signing_secret_sealed);
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
          'comanda-signature': signBody(secret, operation.body),
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
