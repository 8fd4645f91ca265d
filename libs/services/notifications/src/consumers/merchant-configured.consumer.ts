import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import { ConfigureMerchantSecret } from '../usecases/configure-merchant-secret/configure-merchant-secret.usecase';

/** Learns merchants' signing secrets from payments' announcements, in the inbox transaction. */
@Controller()
export class MerchantConfiguredConsumer {
  constructor(private readonly configureMerchantSecret: ConfigureMerchantSecret) {}

  @OnEvent(EventTypes.MerchantConfigured, { consumer: 'merchant-secrets' })
  async onMerchantConfigured(
    @Payload() event: CloudEvent<typeof EventTypes.MerchantConfigured>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    await this.configureMerchantSecret.execute(ctx.getTransaction(), {
      merchantId: event.data.merchantId,
      signingSecret: event.data.signingSecret,
      tenantId: event.tenantid,
      configuredAt: new Date(event.time),
    });
  }
}
