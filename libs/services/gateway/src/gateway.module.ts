import { Module } from '@nestjs/common';
import { RUNTIME_ENV, loadConfig, type RuntimeEnv } from '@comanda/runtime';
import { GatewayConfig } from './config/gateway.config';
import { DocsController } from './docs/docs.controller';
import { OpenApiAggregator } from './docs/openapi-aggregator';
import { UpstreamHealth } from './health/upstream-health';
import { UpstreamHealthController } from './health/upstream-health.controller';
import { GatewayController } from './proxy/gateway.controller';
import { ProxyService } from './proxy/proxy.service';
import { RawBodySetup } from './proxy/raw-body.setup';
import { RequestGate } from './proxy/request-gate';
import { UpstreamPools } from './proxy/upstream-pools';
import { GatewayRateLimiter } from './rate-limit/gateway-rate-limiter';

@Module({
  // The catch-all forwarding controller comes last, so the gateway's own routes are its own.
  controllers: [DocsController, UpstreamHealthController, GatewayController],
  providers: [
    {
      provide: GatewayConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(GatewayConfig, env),
    },
    UpstreamPools,
    RawBodySetup,
    GatewayRateLimiter,
    RequestGate,
    ProxyService,
    OpenApiAggregator,
    UpstreamHealth,
  ],
})
export class GatewayModule {}
