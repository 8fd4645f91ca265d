import { Injectable } from '@nestjs/common';
import { verifySignature } from '@comanda/outbound';
import {
  fingerprintOf,
  readJsonObject,
  validateOperation,
  type OperationRequest,
} from '../domain/operation-request';
import { behaviourOf } from '../domain/payment-method-tokens';
import { InvalidOperationError, OperationSignatureError } from '../domain/sandbox.errors';
import { decide, type SandboxTransaction } from '../domain/sandbox-transaction';
import { PartnerSandboxConfig } from '../partner-sandbox.config';
import { SandboxLedger } from '../persistence/sandbox-ledger';
import { EventDelivery } from './event-delivery';

export interface AcceptOperationCommand {
  rawBody: Buffer;
  signature: string | undefined;
  idempotencyKey: string | undefined;
}

export interface AcceptedOperation {
  operationId: string;
  status: 'accepted';
  /** True when the Idempotency-Key was seen before: the operation did not run again. */
  replayed: boolean;
}

/**
 * `POST /payments` of a partner: validate (rule 7: 400 and no event), verify the signature,
 * honour Idempotency-Key, then accept (202) and complete the operation later with an event.
 */
@Injectable()
export class AcceptOperation {
  constructor(
    private readonly config: PartnerSandboxConfig,
    private readonly ledger: SandboxLedger,
    private readonly delivery: EventDelivery,
  ) {}

  execute(command: AcceptOperationCommand): AcceptedOperation {
    const read = readJsonObject(command.rawBody);
    if (!read) throw InvalidOperationError.malformedJson();
    if (!read.ok) throw InvalidOperationError.invalid(read.errors);
    const validated = validateOperation(read.body);
    if (!validated.ok) throw InvalidOperationError.invalid(validated.errors);
    const operation = validated.operation;

    const secret =
      this.ledger.merchants.get(operation.merchantId)?.signingSecret ??
      this.config.PARTNER_SANDBOX_SIGNING_SECRET;
    const check = verifySignature(command.signature, command.rawBody, secret);
    if (!check.valid) throw new OperationSignatureError(check.reason);

    const key = command.idempotencyKey;
    if (key === undefined || key === '') {
      throw InvalidOperationError.invalid([
        {
          path: 'Idempotency-Key',
          message: 'the Idempotency-Key header is required (the operationId)',
        },
      ]);
    }
    if (key !== operation.operationId) {
      throw InvalidOperationError.invalid([
        { path: 'Idempotency-Key', message: 'the Idempotency-Key header must equal operationId' },
      ]);
    }
    const scopedKey = `${operation.merchantId}/${key}`;
    const seen = this.ledger.idempotencyKeys.get(scopedKey);
    if (seen) {
      if (seen.fingerprint !== fingerprintOf(operation)) {
        throw InvalidOperationError.invalid([
          {
            path: 'Idempotency-Key',
            message:
              'this key was used for a different operation; an operationId serves one operation',
          },
        ]);
      }
      const previous = this.ledger.transactions
        .get(operation.paymentId)
        ?.operations.find((candidate) => candidate.operationId === operation.operationId);
      if (previous) previous.replays += 1;
      return { operationId: operation.operationId, status: 'accepted', replayed: true };
    }

    const transaction = this.transactionFor(operation);
    this.ledger.addIdempotencyKey(scopedKey, {
      fingerprint: fingerprintOf(operation),
      operationId: operation.operationId,
    });
    const behaviour = behaviourOf(operation.paymentMethod);
    const stateBefore = transaction.state;
    const outcome = decide(stateBefore, operation.operationType, behaviour.token);
    transaction.state = outcome.next;
    if (operation.operationType === 'authorization' && outcome.next === 'annulled') {
      transaction.lapsedAt = new Date().toISOString();
    }
    const entry = {
      operationId: operation.operationId,
      operationType: operation.operationType,
      receivedAt: new Date().toISOString(),
      replays: 0,
      stateBefore,
      stateAfter: outcome.next,
    };
    transaction.operations.push(entry);
    if (outcome.event) {
      this.delivery.schedule(
        transaction,
        entry,
        outcome.event,
        behaviour.delayMs ?? this.config.PARTNER_SANDBOX_EVENT_DELAY_MS,
        behaviour.token === 'sandbox_receiver_500',
      );
    }
    return { operationId: operation.operationId, status: 'accepted', replayed: false };
  }

  private transactionFor(operation: OperationRequest): SandboxTransaction {
    const known = this.ledger.transactions.get(operation.paymentId);
    if (known) {
      if (known.merchantId !== operation.merchantId) {
        throw InvalidOperationError.invalid([
          { path: 'paymentId', message: 'this payment belongs to another merchant' },
        ]);
      }
      return known;
    }
    const created: SandboxTransaction = {
      paymentId: operation.paymentId,
      merchantId: operation.merchantId,
      orderId: operation.orderId,
      amount: operation.amount,
      paymentMethod: operation.paymentMethod,
      state: 'new',
      createdAt: new Date().toISOString(),
      operations: [],
    };
    this.ledger.addTransaction(created);
    return created;
  }
}
