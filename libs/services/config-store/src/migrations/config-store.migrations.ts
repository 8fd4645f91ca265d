import { CreateConfigStoreTables1720000000000 } from './1720000000000-create-config-store-tables.migration';
import { PrivateExtensionIdsPerTenant1730000000000 } from './1730000000000-private-extension-ids-per-tenant.migration';

export const CONFIG_STORE_MIGRATIONS = [
  CreateConfigStoreTables1720000000000,
  PrivateExtensionIdsPerTenant1730000000000,
];
