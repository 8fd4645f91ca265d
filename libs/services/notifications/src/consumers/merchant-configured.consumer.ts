import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  EventTypes,
  merchantAnnouncementLabel,
  merchantPreviousAnnouncementLabel,
  type CloudEvent,
  type MerchantConfigured,
} from '@comanda/contracts';
import { BusContext, NonRetryableError, OnEvent } from '@comanda/messaging';
import { SecretBox } from '@comanda/security';
import { ConfigureMerchantSecret } from '../usecases/configure-merchant-secret/configure-merchant-secret.usecase';

/** Learns merchants' signing secrets from payments' announcements, in the inbox transaction. */
@Controller()
export class MerchantConfiguredConsumer {
  constructor(
    private readonly configureMerchantSecret: ConfigureMerchantSecret,
    private readonly secrets: SecretBox,
  ) {}

  @OnEvent(EventTypes.MerchantConfigured, { consumer: 'merchant-secrets' })
  async onMerchantConfigured(
    @Payload() event: CloudEvent<typeof EventTypes.MerchantConfigured>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    await this.configureMerchantSecret.execute(ctx.getTransaction(), {
      merchantId: event.data.merchantId,
      signingSecret: this.announcedSecret(event.data),
      previous: this.announcedPrevious(event.data),
      tenantId: event.tenantid,
      configuredAt: new Date(event.time),
    });
  }

  /** The secret the save replaced and until when it stays valid, when payments kept one (ADR 0070). */
  private announcedPrevious(data: MerchantConfigured): { secret: string; until: Date } | undefined {
    if (typeof data.previousSigningSecretSealed !== 'string') return undefined;
    const until = new Date(data.previousSecretValidUntil ?? Number.NaN);
    if (Number.isNaN(until.getTime())) {
      throw new NonRetryableError(
        `the announcement of merchant ${data.merchantId} carries a previous secret without a valid previousSecretValidUntil`,
      );
    }
    return {
      secret: this.secrets.open(
        data.previousSigningSecretSealed,
        merchantPreviousAnnouncementLabel(data.merchantId),
      ),
      until,
    };
  }

  /**
   * The secret of an announcement: sealed under the key payments and this service share (a
   * value that opens with neither of our keys fails the delivery, which is retried: payments
   * may have a new key before we do), or in clear from a payments older than ADR 0039.
   */
  private announcedSecret(data: MerchantConfigured): string {
    if (typeof data.signingSecretSealed === 'string') {
      return this.secrets.open(
        data.signingSecretSealed,
        merchantAnnouncementLabel(data.merchantId),
      );
    }
    if (typeof data.signingSecret === 'string') return data.signingSecret;
    throw new NonRetryableError(
      `the announcement of merchant ${data.merchantId} carries no signing secret`,
    );
  }
}
