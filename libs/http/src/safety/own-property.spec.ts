import { Readable } from 'node:stream';
import { hasOwn, ownValue, PROTOTYPE_KEYS } from './own-property';
import { guardedStream } from './safe-stream';

describe('lookups keyed by request input', () => {
  const table: Readonly<Record<string, string>> = Object.freeze({ 'a.css': 'text/css' });

  it.each(PROTOTYPE_KEYS)('finds nothing for the prototype key %s', (key) => {
    expect(ownValue(table, key)).toBeUndefined();
    expect(hasOwn(table, key)).toBe(false);
  });

  it('finds own entries', () => {
    expect(ownValue(table, 'a.css')).toBe('text/css');
    expect(hasOwn(table, 'a.css')).toBe(true);
  });
});

describe('guarded streams', () => {
  it('keeps an error of a stream nobody consumed from reaching the process', async () => {
    const seen: Error[] = [];
    const stream = guardedStream(new Readable({ read: () => undefined }), (error) =>
      seen.push(error),
    );
    stream.destroy(new Error('ENOENT'));
    await new Promise((resolve) => stream.once('close', resolve));
    expect(seen.map((error) => error.message)).toEqual(['ENOENT']);
  });
});
