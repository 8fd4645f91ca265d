import { Module } from '@nestjs/common';
import {
  METRICS_SOURCE,
  READINESS_CHECK,
  RUNTIME_ENV,
  loadConfig,
  type RuntimeEnv,
} from '@comanda/runtime';
import { BearerTokenVerifier, securitySettingsFrom } from '@comanda/security';
import { DeadLettersAdminController } from './admin/dead-letters.controller';
import { GatewayConfig } from './config/gateway.config';
import { DocsController } from './docs/docs.controller';
import { OpenApiAggregator } from './docs/openapi-aggregator';
import { RootController } from './docs/root.controller';
import { OpsAccess } from './health/ops-access';
import { UpstreamHealth } from './health/upstream-health';
import { UpstreamHealthController } from './health/upstream-health.controller';
import { ForwardingRoute } from './proxy/forwarding-route';
import { LocalHandOff } from './proxy/local-hand-off';
import { ProxyService } from './proxy/proxy.service';
import { RawBodySetup } from './proxy/raw-body.setup';
import { RequestGate } from './proxy/request-gate';
import { UpstreamPools } from './proxy/upstream-pools';
import { GatewayRateLimiter } from './rate-limit/gateway-rate-limiter';

@Module({
  // Every other path is forwarded (ForwardingRoute): the router prefers these exact paths.
  controllers: [
    RootController,
    DocsController,
    UpstreamHealthController,
    DeadLettersAdminController,
  ],
  providers: [
    {
      provide: GatewayConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(GatewayConfig, env),
    },
    {
      // The public verifier of @comanda/security (and its key cache), as every service uses it.
      provide: BearerTokenVerifier,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => new BearerTokenVerifier(securitySettingsFrom(env)),
    },
    UpstreamPools,
    RawBodySetup,
    GatewayRateLimiter,
    RequestGate,
    ProxyService,
    LocalHandOff,
    ForwardingRoute,
    OpenApiAggregator,
    UpstreamHealth,
    {
      provide: READINESS_CHECK,
      inject: [UpstreamHealth],
      useFactory: (health: UpstreamHealth) => health.readinessOfThisProcess(),
    },
    {
      provide: METRICS_SOURCE,
      inject: [UpstreamHealth],
      useFactory: (health: UpstreamHealth) => health.metricsOfThisProcess(),
    },
    OpsAccess,
  ],
  exports: [READINESS_CHECK, METRICS_SOURCE],
})
export class GatewayModule {}
