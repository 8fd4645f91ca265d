import type { ServiceDefinition } from '@comanda/runtime';
import { GatewayConfig } from './config/gateway.config';
import { GatewayModule } from './gateway.module';

/** The public port: stateless, no database, forwards to the services behind it. */
export const gatewayService: ServiceDefinition = {
  name: 'gateway',
  configs: [GatewayConfig],
  module: GatewayModule,
  publicListener: true,
  // `GET /openapi.json` is the whole platform's document (RootController), not the gateway's own.
  openApi: false,
  // Its catch-all route's parameter is the whole path; the services cap their own parameters.
  maxPathParamLength: 4096,
  // The runtime's check exempts by prefix; the gateway's own RequestGate checks the exact
  // exempt paths (`/auth/{tenant}/connect/token`, ...) and everything else.
  versionExemptPaths: ['/'],
};
