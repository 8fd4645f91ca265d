import type { ServiceDefinition } from '@comanda/runtime';
import { authService } from '@comanda/service-auth';
import { configStoreService } from '@comanda/service-config-store';
import { gatewayService } from '@comanda/service-gateway';
import { notificationsService } from '@comanda/service-notifications';
import { ordersService } from '@comanda/service-orders';
import { paymentsService } from '@comanda/service-payments';
import { pluginRegistryService } from '@comanda/service-plugin-registry';

/** Every service of the platform, as standalone mode runs them. */
export const PLATFORM_SERVICES: ServiceDefinition[] = [
  authService,
  configStoreService,
  pluginRegistryService,
  ordersService,
  paymentsService,
  notificationsService,
  gatewayService,
];
