export { pluginRegistryService } from './plugin-registry.service-definition';
export { PluginRegistryConfig, PLUGIN_REGISTRY_BODY_LIMIT_BYTES } from './plugin-registry.config';
export { checkPluginCode } from './code/plugin-code.validator';
export type { CodeProblem } from './code/plugin-code.validator';
export type {
  ManifestParameter,
  ParameterType,
  PluginManifest,
} from './manifest/manifest-parameter';
export type { PluginConfigView } from './configs/plugin-config.service';
