import { CreateConfigStoreTables1720000000000 } from './1720000000000-create-config-store-tables.migration';

export const CONFIG_STORE_MIGRATIONS = [CreateConfigStoreTables1720000000000];
