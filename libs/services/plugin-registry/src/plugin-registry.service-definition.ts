import type { ServiceDefinition } from '@comanda/runtime';
import { CreatePluginTables1763820000000 } from './persistence/create-plugin-tables.migration';
import { PluginConfigEntity } from './persistence/plugin-config.entity';
import { PluginVersionEntity } from './persistence/plugin-version.entity';
import { PLUGIN_REGISTRY_BODY_LIMIT_BYTES, PluginRegistryConfig } from './plugin-registry.config';
import { PluginRegistryModule } from './plugin-registry.module';

/** Plugin code, manifests and plugin configs under `/frontend/plugins`, schema `plugins`. */
export const pluginRegistryService: ServiceDefinition = {
  name: 'plugin-registry',
  configs: [PluginRegistryConfig],
  database: {
    schema: 'plugins',
    entities: [PluginVersionEntity, PluginConfigEntity],
    migrations: [CreatePluginTables1763820000000],
  },
  module: PluginRegistryModule,
  // Above the code limit, so an oversized upload gets the registry's own 413 with both sizes.
  bodyLimitBytes: PLUGIN_REGISTRY_BODY_LIMIT_BYTES,
  rawContentTypes: ['text/plain'],
};
