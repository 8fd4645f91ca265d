import { clientAddress, parseTrustedProxies } from './client-address';

describe('client address for rate limits', () => {
  const trusted = parseTrustedProxies('10.0.0.0/8, 192.168.1.7');

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For claims', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', [])).toBe('203.0.113.9');
  });

  it('is the socket peer when the peer is not a trusted proxy', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
  });

  it('is the rightmost untrusted forwarded address behind trusted proxies', () => {
    expect(clientAddress('10.1.2.3', '6.6.6.6, 198.51.100.4, 192.168.1.7', trusted)).toBe(
      '198.51.100.4',
    );
    expect(clientAddress('::ffff:10.1.2.3', '198.51.100.4', trusted)).toBe('198.51.100.4');
  });
});
