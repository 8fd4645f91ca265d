import type { IncomingMessage } from 'node:http';
import { originFormOf } from './absolute-form';

/** A request for `url`, sent with `host` as its Host header (none when null). */
function request(url: string, host: string | null = 'sent.example'): IncomingMessage {
  return { url, headers: host === null ? {} : { host } } as unknown as IncomingMessage;
}

describe('a request target in absolute form (RFC 9112 §3.2.2)', () => {
  it.each([
    ['http://api.example/entities/e/configs', '/entities/e/configs', 'api.example'],
    ['HTTPS://api.example:8443/a?b=c', '/a?b=c', 'api.example:8443'],
    ['http://api.example', '/', 'api.example'],
    ['http://api.example?x=1', '/?x=1', 'api.example'],
    ['http://user:secret@api.example/a', '/a', 'api.example'],
    // The path as sent: the gateway's checks see its dot segments as in the origin form.
    ['http://api.example/entities/../admin', '/entities/../admin', 'api.example'],
  ])('routes %s as %s, its authority the host', (target, path, host) => {
    const given = request(target);
    expect(originFormOf(given)).toBe(path);
    expect(given.headers.host).toBe(host);
  });

  it.each(['/entities/e/configs', '*', 'http:///no-authority', 'ftp://api.example/a'])(
    'leaves %s and the Host header as they came',
    (target) => {
      const given = request(target);
      expect(originFormOf(given)).toBe(target);
      expect(given.headers.host).toBe('sent.example');
    },
  );

  it('adds no Host to a request that sent none (HTTP/1.1 refuses it)', () => {
    const given = request('http://api.example/a', null);
    expect(originFormOf(given)).toBe('/a');
    expect(given.headers.host).toBeUndefined();
  });
});
