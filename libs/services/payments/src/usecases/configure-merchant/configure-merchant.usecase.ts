import { Injectable } from '@nestjs/common';
import {
  EventTypes,
  merchantAnnouncementLabel,
  merchantPreviousAnnouncementLabel,
} from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { OutboundHttp, UnsafeUrlError } from '@comanda/outbound';
import type { Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import type { Merchant } from '../../domain/merchant';
import {
  MerchantRepository,
  type LockedMerchant,
  type PreviousSecret,
} from '../../persistence/merchant.repository';
import { MerchantIdTakenError, PartnerUrlRefusedError } from './merchant.errors';

export interface MerchantInput {
  name: string;
  partnerUrl: string;
  signingSecret: string;
  /** How long the secret this save replaces stays valid beside the new one (ADR 0070). */
  gracePeriodSeconds?: number;
}

/**
 * Creates or replaces a merchant. The partner URL is checked against the deployment's
 * outbound policy here (and again at every connection by the sender); the secret is stored
 * sealed, and every save announces it, sealed as well, to the notification receiver, which
 * verifies partner events with it (ADR 0039). A save that changes the secret may keep the
 * replaced one valid beside it for a grace (ADR 0070), announced with it.
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
      previousSecretValidUntil: null,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const previous = this.previousSecret(existing, input, now);
    const stored = await this.merchants.upsert(tx, merchant, input.signingSecret, previous);
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
        ...(previous
          ? {
              previousSigningSecretSealed: this.secrets.seal(
                previous.secret,
                merchantPreviousAnnouncementLabel(id),
              ),
              previousSecretValidUntil: previous.until.toISOString(),
            }
          : {}),
      },
    });
    return stored;
  }

  /**
   * The secret kept valid beside the one saved (ADR 0070): the replaced one, for the grace
   * the save asks for. Saving the same secret again leaves a rollover in progress as it is;
   * changing it again starts a new one from the secret it replaces (the older one ends).
   */
  private previousSecret(
    existing: LockedMerchant | undefined,
    input: MerchantInput,
    now: Date,
  ): PreviousSecret | undefined {
    if (!existing) return undefined;
    // A value sealed under a key this service no longer holds signs nothing: nothing is lost.
    const current = opened(() => this.merchants.openSecret(existing.id, existing.secretSealed));
    if (current === undefined) return undefined;
    if (current === input.signingSecret) {
      const kept = existing.previous;
      if (!kept || kept.until <= now) return undefined;
      const secret = opened(() => this.merchants.openPreviousSecret(existing.id, kept.sealed));
      return secret === undefined ? undefined : { secret, until: kept.until };
    }
    const graceSeconds = input.gracePeriodSeconds ?? 0;
    return graceSeconds > 0
      ? { secret: current, until: new Date(now.getTime() + graceSeconds * 1_000) }
      : undefined;
  }
}

/** The secret `open` gives, or undefined when it does not open. */
function opened(open: () => string): string | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}
