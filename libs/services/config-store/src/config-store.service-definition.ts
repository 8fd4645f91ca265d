import type { ServiceDefinition } from '@comanda/runtime';
import { CONFIG_STORE_ENTITIES } from './config-store.entities';
import { ConfigStoreModule } from './config-store.module';
import { CONFIG_STORE_MIGRATIONS } from './migrations/config-store.migrations';

/** Configs with versions, connections and the extension registry, schema `config`. */
export const configStoreService: ServiceDefinition = {
  name: 'config-store',
  database: {
    schema: 'config',
    entities: CONFIG_STORE_ENTITIES,
    migrations: CONFIG_STORE_MIGRATIONS,
  },
  module: ConfigStoreModule,
};
