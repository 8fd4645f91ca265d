import { MAX_JSON_DEPTH, unstorableText } from './storable-text';

describe('manifest and plugin config text the database cannot store', () => {
  it('accepts unicode and emoji, and leaves code buffers alone', () => {
    expect(unstorableText({ description: 'ünïcødé 🍕', parameters: [] })).toEqual([]);
    expect(unstorableText(Buffer.from('export default () => "\u0000";'))).toEqual([]);
  });

  it('names each string or member name with a NUL character or a lone surrogate', () => {
    expect(
      unstorableText({ description: 'a\u0000', config: { 'k\u0000': 1, t: '\udc00' } }),
    ).toEqual([
      { path: 'description', message: expect.stringContaining('NUL') },
      { path: 'config', message: expect.stringContaining('member names') },
      { path: 'config.t', message: expect.stringContaining('lone surrogate') },
    ]);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels`, () => {
    let deep: unknown = 1;
    for (let level = 0; level < 10_000; level += 1) deep = { deep };
    expect(unstorableText({ config: deep })).toHaveLength(1);
  });
});
