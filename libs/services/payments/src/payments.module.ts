import { Module } from '@nestjs/common';
import { OutboundHttp, outboundPolicyFor } from '@comanda/outbound';
import { previousSecretColumn } from '@comanda/security';
import {
  loadConfig,
  RUNTIME_ENV,
  RuntimeConfig,
  sealedSecretsProviders,
  type RuntimeEnv,
} from '@comanda/runtime';
import { PaymentSagaConsumer } from './consumers/payment-saga.consumer';
import { MerchantsController } from './http/merchants.controller';
import { PaymentsController } from './http/payments.controller';
import { MerchantRepository, merchantSecretColumn } from './persistence/merchant.repository';
import { PaymentRepository } from './persistence/payment.repository';
import { PaymentsConfig } from './payments.config';
import { OperationSender } from './sending/operation-sender';
import { PaymentDeadlinesHandler } from './timers/payment-deadlines.handler';
import { ApplyPaymentTrigger } from './usecases/apply-trigger/apply-payment-trigger.usecase';
import { OperationRecorder } from './usecases/apply-trigger/operation-recorder';
import { PaymentAnnouncer } from './usecases/apply-trigger/payment-announcer';
import { ConfigureMerchant } from './usecases/configure-merchant/configure-merchant.usecase';
import { GetPayment } from './usecases/get-payment/get-payment.usecase';
import { StartPayment } from './usecases/start-payment/start-payment.usecase';

@Module({
  // Merchants first: `/payments/merchants/...` must not be taken for a payment id.
  controllers: [MerchantsController, PaymentsController, PaymentSagaConsumer],
  providers: [
    {
      provide: PaymentsConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(PaymentsConfig, env),
    },
    {
      // Production: https and public addresses only, at save and at every connection.
      provide: OutboundHttp,
      inject: [RuntimeConfig, PaymentsConfig],
      useFactory: (runtime: RuntimeConfig, payments: PaymentsConfig) =>
        new OutboundHttp(outboundPolicyFor(runtime.COMANDA_ENVIRONMENT), {
          connectionsPerOrigin: payments.PAYMENT_SEND_CONCURRENCY,
        }),
    },
    // Merchants' signing secrets are sealed at rest under COMANDA_SECRETS_KEY (ADR 0033).
    ...sealedSecretsProviders({
      service: 'payments',
      columns: (schema) => [
        merchantSecretColumn(schema),
        previousSecretColumn(merchantSecretColumn(schema)),
      ],
    }),
    PaymentRepository,
    MerchantRepository,
    OperationRecorder,
    PaymentAnnouncer,
    ApplyPaymentTrigger,
    StartPayment,
    ConfigureMerchant,
    GetPayment,
    PaymentDeadlinesHandler,
    OperationSender,
  ],
})
export class PaymentsModule {}
