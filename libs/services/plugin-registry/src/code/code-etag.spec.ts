import { codeEtag, ifNoneMatchHits } from './code-etag';

describe('code ETags', () => {
  const etag = codeEtag('ab12');

  it('is a strong, quoted tag naming the hash', () => {
    expect(etag).toBe('"sha256-ab12"');
  });

  it.each([
    ['the same tag', '"sha256-ab12"'],
    ['the tag among others', '"sha256-00", "sha256-ab12"'],
    ['a weak form of the tag', 'W/"sha256-ab12"'],
    ['any representation', '*'],
  ])('revalidates (304) when If-None-Match holds %s', (_label, header) => {
    expect(ifNoneMatchHits(header, etag)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another tag', '"sha256-ff"'],
    ['the hash without quotes', 'sha256-ab12'],
  ])('serves the code when If-None-Match has %s', (_label, header) => {
    expect(ifNoneMatchHits(header, etag)).toBe(false);
  });
});
