import { urlPath } from './url-path';

describe('urlPath', () => {
  it.each([
    ['/entities/a/configs', '/entities/a/configs'],
    ['/entities/a/configs?take=2&x=?', '/entities/a/configs'],
    ['/health?', '/health'],
    ['?only=query', ''],
    ['', ''],
  ])('%s → %s, as split("?")[0] gives', (url, path) => {
    expect(urlPath(url)).toBe(path);
    expect(urlPath(url)).toBe(url.split('?')[0]);
  });
});
