import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { keepRawJsonBody } from '@comanda/http';
import { sealedSecretsProviders } from '@comanda/runtime';
import { previousSecretColumn } from '@comanda/security';
import { MerchantConfiguredConsumer } from './consumers/merchant-configured.consumer';
import { PARTNER_EVENTS_PATH, PartnerEventsController } from './http/partner-events.controller';
import { merchantSecretColumn } from './persistence/merchant-secret.entity';
import { ConfigureMerchantSecret } from './usecases/configure-merchant-secret/configure-merchant-secret.usecase';
import { ReceivePartnerEvent } from './usecases/receive-partner-event/receive-partner-event.usecase';

@Module({
  controllers: [PartnerEventsController, MerchantConfiguredConsumer],
  providers: [
    // Merchants' signing secrets are sealed at rest under COMANDA_SECRETS_KEY (ADR 0033).
    ...sealedSecretsProviders({
      service: 'notifications',
      columns: (schema) => [
        merchantSecretColumn(schema),
        previousSecretColumn(merchantSecretColumn(schema)),
      ],
    }),
    ReceivePartnerEvent,
    ConfigureMerchantSecret,
  ],
})
export class NotificationsModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    keepRawJsonBody(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), (path) =>
      PARTNER_EVENTS_PATH.test(path),
    );
  }
}
