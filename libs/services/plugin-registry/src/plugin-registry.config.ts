// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Largest request body the service's HTTP server reads at all (the gateway allows the same). */
export const PLUGIN_REGISTRY_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** Settings of the plugin registry, read once at boot from the runtime's environment snapshot. */
export class PluginRegistryConfig {
  /**
   * Largest plugin code accepted, in bytes of UTF-8; larger uploads answer 413. The explicit
   * type is what lets the config loader turn the environment's string into a number.
   */
  @IsInt()
  @Min(1)
  @Max(PLUGIN_REGISTRY_BODY_LIMIT_BYTES)
  PLUGIN_CODE_MAX_BYTES: number = 1024 * 1024;
}
