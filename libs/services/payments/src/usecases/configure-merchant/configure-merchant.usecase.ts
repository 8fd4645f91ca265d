import { Injectable } from '@nestjs/common';
import { EventTypes, merchantAnnouncementLabel } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { OutboundHttp, UnsafeUrlError } from '@comanda/outbound';
import type { Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
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
 * sealed, and every save announces it, sealed as well, to the notification receiver, which
 * verifies partner events with it (ADR 0039).
 */
@Injectable()
export class ConfigureMerchant {
  constructor(
    private readonly merchants: MerchantRepository,
    private readonly outbox: OutboxWriter,
    private readonly outbound: OutboundHttp,
    private readonly secrets: SecretBox,
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
    // The receiver needs the secret and reads no table of ours (ADR 0030); it holds the same
    // key, and the broker sees only the sealed value (ADR 0039).
    await this.outbox.add(tx, {
      type: EventTypes.MerchantConfigured,
      tenantId,
      subject: id,
      data: {
        merchantId: id,
        signingSecretSealed: this.secrets.seal(input.signingSecret, merchantAnnouncementLabel(id)),
      },
    });
    return stored;
  }
}
