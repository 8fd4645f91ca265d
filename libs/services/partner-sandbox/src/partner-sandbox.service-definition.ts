import type { ServiceDefinition } from '@comanda/runtime';
import { PartnerSandboxConfig } from './partner-sandbox.config';
import { PartnerSandboxModule } from './partner-sandbox.module';

/**
 * A reference payment partner: `POST /payments` per the spec's rules 1-7, state in memory,
 * events signed to each merchant's notifications URL. Not a Comanda service: no database,
 * no tokens (operations are authenticated by their signature), no X-Api-Version.
 */
export const partnerSandboxService: ServiceDefinition = {
  name: 'partner-sandbox',
  configs: [PartnerSandboxConfig],
  module: PartnerSandboxModule,
  security: false,
  versionExemptPaths: ['/payments', '/sandbox/'],
  bodyLimitBytes: 64 * 1024,
};
