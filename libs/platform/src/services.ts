import type { ServiceDefinition } from '@comanda/runtime';
import { authService } from '@comanda/service-auth';
import { configStoreService } from '@comanda/service-config-store';
import { gatewayService } from '@comanda/service-gateway';
import { pluginRegistryService } from '@comanda/service-plugin-registry';

/** Every service of the platform, as standalone mode runs them. */
export const PLATFORM_SERVICES: ServiceDefinition[] = [
  authService,
  configStoreService,
  pluginRegistryService,
  gatewayService,
];
