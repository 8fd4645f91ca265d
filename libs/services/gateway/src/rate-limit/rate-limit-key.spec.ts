import type { Principal } from '@comanda/security';
import { rateLimitKey } from './rate-limit-key';

describe('rate-limit key', () => {
  it('is the verified client of the request', () => {
    const principal = { clientId: 'pos-1', tenantId: 'acme' } as Principal;
    expect(rateLimitKey(principal, '1.1.1.1')).toBe('client:acme:pos-1');
  });

  it('is the client address when nothing was verified', () => {
    expect(rateLimitKey(undefined, '198.51.100.4')).toBe('ip:198.51.100.4');
  });
});
