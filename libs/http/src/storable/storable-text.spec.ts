import fc from 'fast-check';
import { isStorable, MAX_JSON_DEPTH, storableExcerpt, unstorableText } from './storable-text';

describe('text the database cannot store', () => {
  it('accepts ordinary unicode, emoji (surrogate pairs) and non-string values', () => {
    expect(
      unstorableText({
        id: 'ünï',
        values: { pizza: '🍕', n: 1, on: true, none: null, list: ['a'] },
      }),
    ).toEqual([]);
  });

  it('names each string or member name holding a NUL character or a lone surrogate', () => {
    expect(
      unstorableText({
        id: 'a\u0000',
        values: { 'k\u0000': 1, note: 'x\ud800', tail: 'y\udc00' },
        refs: [{ dataId: 'd\u0000' }],
      }),
    ).toEqual([
      { path: 'id', message: expect.stringContaining('NUL') },
      { path: 'values', message: expect.stringContaining('member names') },
      { path: 'values.note', message: expect.stringContaining('lone surrogate') },
      { path: 'values.tail', message: expect.stringContaining('lone surrogate') },
      { path: 'refs[0].dataId', message: expect.stringContaining('NUL') },
    ]);
  });

  it('walks objects without Object.prototype, as Fastify builds params and query', () => {
    const nullPrototype = Object.create(null) as object;
    const params = Object.assign(Object.create(nullPrototype) as object, { id: 'a\u0000b' });
    expect(unstorableText(params)).toEqual([{ path: 'id', message: expect.any(String) }]);
    expect(unstorableText(Buffer.from('a\u0000b'))).toEqual([]);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels without walking further`, () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(unstorableText({ values: { deep } })).toEqual([
      { path: expect.stringMatching(/^values\.deep(\[0\])+$/), message: expect.any(String) },
    ]);
    let fits: unknown = 'leaf';
    for (let level = 0; level < MAX_JSON_DEPTH - 2; level += 1) fits = [fits];
    expect(unstorableText({ values: fits })).toEqual([]);
  });

  it('isStorable answers true exactly when unstorableText finds nothing', () => {
    // Text mostly of the characters that matter: NUL, both halves of surrogates, pairs.
    const suspect = fc.constantFrom('\u0000', '\ud800', '\udc00', '\ud83c\udf55', 'a', 'ü');
    const text = fc.array(suspect, { maxLength: 4 }).map((parts) => parts.join(''));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(text, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (input) => {
        expect(isStorable(input)).toBe(unstorableText(input).length === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('isStorable refuses nesting past the limit', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level <= MAX_JSON_DEPTH; level++) deep = [deep];
    expect(isStorable(deep)).toBe(false);
    expect(isStorable((deep as unknown[])[0])).toBe(true);
  });
});

describe('an excerpt of outside text made storable', () => {
  it('drops NUL characters and replaces lone surrogates', () => {
    expect(storableExcerpt('a\u0000b\ud800c\udc00', 100)).toBe('ab\ufffdc\ufffd');
  });

  it('never cuts a surrogate pair in two, and keeps whole pairs', () => {
    expect(storableExcerpt('ab🍕cd', 3)).toBe('ab');
    expect(storableExcerpt('ab🍕cd', 4)).toBe('ab🍕');
  });

  it('gives what it keeps as text the database can store, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(50), (text, max) => {
        const excerpt = storableExcerpt(text, max);
        expect(excerpt.length).toBeLessThanOrEqual(max);
        expect(unstorableText(excerpt)).toEqual([]);
      }),
    );
  });
});
