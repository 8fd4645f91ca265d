import { PLUGIN_CONFIG_MAX_BYTES, parsePluginConfigBody } from './plugin-config-body';

describe('parsePluginConfigBody', () => {
  it('splits the known members from further ones and drops the members the service sets', () => {
    expect(
      parsePluginConfigBody({
        id: 'ignored',
        name: 'menu-banner',
        version: '1.2.0',
        config: { title: 'Hi' },
        placement: 'header',
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt: '2020-01-01T00:00:00.000Z',
      }),
    ).toEqual({
      name: 'menu-banner',
      version: '1.2.0',
      config: { title: 'Hi' },
      extra: { placement: 'header' },
    });
  });

  it('lists every invalid known member at once', () => {
    expect(() => parsePluginConfigBody({ name: 'Menu Banner', version: 'v1', config: [] })).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'request.invalid',
        errors: [
          expect.objectContaining({ path: 'name' }),
          expect.objectContaining({ path: 'version' }),
          { path: 'config', message: 'config must be an object' },
        ],
      }),
    );
  });

  it('refuses a body that is not an object', () => {
    expect(() => parsePluginConfigBody([])).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('refuses a config whose config and further members exceed 256 KiB of JSON together', () => {
    const half = 'x'.repeat(PLUGIN_CONFIG_MAX_BYTES / 2);
    const body = (extra: string) => ({ name: 'p', version: '1.0.0', config: { half }, extra });
    // `{"config":{"half":"…"},"extra":{"extra":"…"}}` is 43 bytes around the two strings.
    expect(parsePluginConfigBody(body('y'.repeat(PLUGIN_CONFIG_MAX_BYTES / 2 - 43))).extra).toEqual(
      {
        extra: 'y'.repeat(PLUGIN_CONFIG_MAX_BYTES / 2 - 43),
      },
    );
    expect(() => parsePluginConfigBody(body('y'.repeat(PLUGIN_CONFIG_MAX_BYTES / 2 - 42)))).toThrow(
      expect.objectContaining({
        status: 400,
        errors: [
          {
            path: 'config',
            message: `config and the further members must be at most ${PLUGIN_CONFIG_MAX_BYTES} bytes of JSON together (${PLUGIN_CONFIG_MAX_BYTES + 1} given)`,
          },
        ],
      }),
    );
  });
});
