import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { keepRawJsonBody } from '@comanda/http';
import { loadConfig, RUNTIME_ENV, type RuntimeEnv } from '@comanda/runtime';
import { PaymentsController } from './http/payments.controller';
import { SandboxController } from './http/sandbox.controller';
import { PartnerSandboxConfig } from './partner-sandbox.config';
import { SandboxLedger } from './persistence/sandbox-ledger';
import { AcceptOperation } from './usecases/accept-operation.usecase';
import { EventDelivery } from './usecases/event-delivery';

@Module({
  controllers: [PaymentsController, SandboxController],
  providers: [
    {
      provide: PartnerSandboxConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(PartnerSandboxConfig, env),
    },
    SandboxLedger,
    EventDelivery,
    AcceptOperation,
  ],
})
export class PartnerSandboxModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // Operations are signed over their exact bytes.
    keepRawJsonBody(
      this.adapterHost.httpAdapter.getInstance<FastifyInstance>(),
      (path) => path === '/payments',
    );
  }
}
