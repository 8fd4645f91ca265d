import { Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { OutboundHttp, UnsafeUrlError } from '@comanda/outbound';
import type { Tx } from '@comanda/persistence';
import type { Merchant } from '../../domain/merchant';
import { MerchantRepository } from '../../persistence/merchant.repository';
import { MerchantIdTakenError, PartnerUrlRefusedError } from './merchant.errors';

export interface MerchantInput {
  name: string;
  partnerUrl: string;
  signingSecret: string;
}

/**
 * Creates or replaces a merchant. The partner URL is checked against the deployment's
 * outbound policy here (and again at every connection by the sender); the secret is stored
 * sealed, and every save announces it to the notification receiver, which verifies partner
 * events with it.
 */
@Injectable()
export class ConfigureMerchant {
  constructor(
    private readonly merchants: MerchantRepository,
    private readonly outbox: OutboxWriter,
    private readonly outbound: OutboundHttp,
  ) {}

  /** Checked before the transaction opens: a DNS lookup must not hold one. */
  async checkPartnerUrl(url: string): Promise<void> {
    try {
      await this.outbound.check(url);
    } catch (error) {
      if (error instanceof UnsafeUrlError)
        throw new PartnerUrlRefusedError(error.code, error.message);
      throw error;
    }
  }

  async execute(
    tx: Tx,
    tenantId: string,
    id: string,
    input: MerchantInput,
    now: Date = new Date(),
  ): Promise<{ merchant: Merchant; created: boolean }> {
    const existing = await this.merchants.lock(tx, id);
    if (existing && existing.tenantId !== tenantId) throw new MerchantIdTakenError(id);
    const merchant: Merchant = {
      id,
      tenantId,
      name: input.name,
      partnerUrl: input.partnerUrl,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const stored = await this.merchants.upsert(tx, merchant, input.signingSecret);
    // Another tenant created the id after the lock found none (a missing row locks nothing):
    // nothing was written, and its secret must not reach the receiver.
    if (!stored) throw new MerchantIdTakenError(id);
    // The contract of this event carries the secret in clear (ADR 0030): the receiver needs
    // it and reads no table of ours. A known exposure, in docs/security.md (ADR 0033).
    await this.outbox.add(tx, {
      type: EventTypes.MerchantConfigured,
      tenantId,
      subject: id,
      data: { merchantId: id, signingSecret: input.signingSecret },
    });
    return stored;
  }
}
