import { ConfigError, loadConfig } from '@comanda/runtime';
import { PluginRegistryConfig } from './plugin-registry.config';

describe('PluginRegistryConfig', () => {
  it('limits plugin code to 1 MiB when nothing is set', () => {
    expect(loadConfig(PluginRegistryConfig, {}).PLUGIN_CODE_MAX_BYTES).toBe(1024 * 1024);
  });

  it('reads PLUGIN_CODE_MAX_BYTES from the environment', () => {
    expect(
      loadConfig(PluginRegistryConfig, { PLUGIN_CODE_MAX_BYTES: '65536' }).PLUGIN_CODE_MAX_BYTES,
    ).toBe(65536);
  });

  it('refuses a limit above the 2 MiB the HTTP server reads, or one that is not a number', () => {
    expect(() =>
      loadConfig(PluginRegistryConfig, { PLUGIN_CODE_MAX_BYTES: String(3 * 1024 * 1024) }),
    ).toThrow(ConfigError);
    expect(() => loadConfig(PluginRegistryConfig, { PLUGIN_CODE_MAX_BYTES: 'lots' })).toThrow(
      ConfigError,
    );
  });
});
