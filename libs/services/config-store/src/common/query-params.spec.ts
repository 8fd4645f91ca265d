import { parseEntitySlug } from './entity-slug';
import { ifMatchSatisfied } from './etag';
import { parsePageRequest } from './page';
import {
  parseBooleanParam,
  parseBoundedInt,
  parseInt32,
  parseTimestampParam,
} from './query-params';

describe('request parameters of the configuration group', () => {
  it('accepts only the words true and false as query booleans', () => {
    expect(parseBooleanParam('complete', undefined)).toBe(false);
    expect(parseBooleanParam('complete', 'true')).toBe(true);
    expect(parseBooleanParam('complete', 'false')).toBe(false);
    for (const value of ['1', 'yes', 'TRUE', '', 'true,true']) {
      expect(() => parseBooleanParam('complete', value)).toThrow(
        expect.objectContaining({ status: 400, code: 'request.invalid' }),
      );
    }
  });

  it('checks the int32 range of versions and take', () => {
    expect(parseInt32('version', '2147483647')).toBe(2147483647);
    expect(parseInt32('version', '-2147483648')).toBe(-2147483648);
    for (const value of ['2147483648', '1.5', 'abc', '', '1e3', ' 1']) {
      expect(() => parseInt32('version', value)).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(parseBoundedInt('take', undefined, { fallback: 1, min: 1, max: 10 })).toBe(1);
    expect(() => parseBoundedInt('take', '0', { fallback: 1, min: 1, max: 10 })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });

  it('pages 20 by default, at most 100, and reads the offset as RFC 3339', () => {
    expect(parsePageRequest({})).toEqual({ createdAfter: undefined, limit: 20 });
    expect(parsePageRequest({ limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', '-1', 'ten']) {
      expect(() => parsePageRequest({ limit })).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(
      parseTimestampParam('created_at_offset', '2025-03-01T10:00:00.123456+01:00')?.toISOString(),
    ).toBe('2025-03-01T09:00:00.123Z');
    expect(parseTimestampParam('created_at_offset', '2024-02-29T23:59:59Z')?.toISOString()).toBe(
      '2024-02-29T23:59:59.000Z',
    );
    for (const value of [
      '2025-03-01',
      'yesterday',
      '2025-03-01 10:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T10:00:00+24:00',
    ]) {
      expect(() => parseTimestampParam('created_at_offset', value)).toThrow(
        expect.objectContaining({ status: 400 }),
      );
    }
  });

  it('takes {entity} only as a lower-case slug of 1 to 63 characters', () => {
    expect(parseEntitySlug('order-charges')).toBe('order-charges');
    expect(parseEntitySlug('a'.repeat(63))).toHaveLength(63);
    for (const value of ['', 'Orders', 'a_b', 'a.b', 'a'.repeat(64), 'ü']) {
      expect(() => parseEntitySlug(value)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });

  it('compares If-Match strongly, with * matching any current version', () => {
    expect(ifMatchSatisfied(undefined, 3)).toBe(true);
    expect(ifMatchSatisfied('*', 3)).toBe(true);
    expect(ifMatchSatisfied('"3"', 3)).toBe(true);
    expect(ifMatchSatisfied('"2", "3"', 3)).toBe(true);
    expect(ifMatchSatisfied('"2"', 3)).toBe(false);
    expect(ifMatchSatisfied('W/"3"', 3)).toBe(false);
    expect(() => ifMatchSatisfied('3', 3)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
