import { Injectable } from '@nestjs/common';
import type { SandboxTransaction } from '../domain/sandbox-transaction';

export interface MerchantSettings {
  signingSecret?: string;
  /** The merchant's notifications_url; events go to `<this>/events`. */
  notificationsUrl?: string;
}

export interface IdempotentAnswer {
  fingerprint: string;
  operationId: string;
}

/** Transactions (and idempotency keys) kept; the oldest are forgotten beyond it. */
export const MAX_REMEMBERED = 10_000;

/**
 * The sandbox's whole state, in memory: it is a sandbox, a restart forgets everything, and
 * a long-running demo forgets its oldest transactions rather than grow without bound.
 */
@Injectable()
export class SandboxLedger {
  readonly transactions = new Map<string, SandboxTransaction>();
  readonly idempotencyKeys = new Map<string, IdempotentAnswer>();
  readonly merchants = new Map<string, MerchantSettings>();

  addTransaction(transaction: SandboxTransaction): void {
    this.transactions.set(transaction.paymentId, transaction);
    forgetOldest(this.transactions);
  }

  addIdempotencyKey(key: string, answer: IdempotentAnswer): void {
    this.idempotencyKeys.set(key, answer);
    forgetOldest(this.idempotencyKeys);
  }
}

/** Maps iterate in insertion order: the first keys are the oldest. */
function forgetOldest(map: Map<string, unknown>): void {
  for (const key of map.keys()) {
    if (map.size <= MAX_REMEMBERED) return;
    map.delete(key);
  }
}
