import type { ManifestParameter } from '../manifest/manifest-parameter';
import { checkConfigAgainstParameters } from './plugin-config.rules';

const parameters: ManifestParameter[] = [
  { name: 'title', type: 'string', required: true },
  { name: 'limit', type: 'integer', required: true, default: 3 },
  { name: 'ratio', type: 'number', required: false },
  { name: 'enabled', type: 'boolean', required: false },
  { name: 'theme', type: 'object', required: false },
  { name: 'items', type: 'array', required: false },
];

describe('checkConfigAgainstParameters', () => {
  it('accepts a config with every declared type right, and members the manifest does not declare', () => {
    expect(
      checkConfigAgainstParameters(
        {
          title: 'x',
          limit: 2,
          ratio: 0.5,
          enabled: true,
          theme: { a: 1 },
          items: [],
          legacy: 'kept',
        },
        parameters,
      ),
    ).toEqual([]);
  });

  it('lets a default satisfy a required parameter', () => {
    expect(checkConfigAgainstParameters({ title: 'x' }, parameters)).toEqual([]);
  });

  it('reports a missing required parameter and each wrong type at its path', () => {
    expect(
      checkConfigAgainstParameters(
        { limit: 1.5, ratio: '1', enabled: 'yes', theme: [], items: {} },
        parameters,
      ),
    ).toEqual([
      { path: 'config.title', message: 'title is required (string)' },
      { path: 'config.limit', message: 'limit must be of type integer, got number' },
      { path: 'config.ratio', message: 'ratio must be of type number, got string' },
      { path: 'config.enabled', message: 'enabled must be of type boolean, got string' },
      { path: 'config.theme', message: 'theme must be of type object, got array' },
      { path: 'config.items', message: 'items must be of type array, got object' },
    ]);
  });

  it('treats null as a value of the wrong type, not as absent', () => {
    expect(checkConfigAgainstParameters({ title: null }, parameters)).toEqual([
      { path: 'config.title', message: 'title must be of type string, got null' },
    ]);
  });
});
