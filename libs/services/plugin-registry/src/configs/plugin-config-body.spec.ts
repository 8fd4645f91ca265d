import { parsePluginConfigBody } from './plugin-config-body';

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
});
