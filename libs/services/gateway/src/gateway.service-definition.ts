import type { ServiceDefinition } from '@comanda/runtime';
import { GatewayModule } from './gateway.module';

/** The public port: stateless, no database, forwards to the services behind it. */
export const gatewayService: ServiceDefinition = {
  name: 'gateway',
  module: GatewayModule,
  // The runtime's check exempts by prefix; the gateway's own RequestGate checks the exact
  // exempt paths (`/auth/{tenant}/connect/token`, ...) and everything else.
  versionExemptPaths: ['/'],
};
