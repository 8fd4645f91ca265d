import type { FastifyRequest } from 'fastify';
import type { Principal } from '@comanda/security';
import { assignRateLimitKey, rateLimitKey } from './rate-limit-key';

const request = () => ({ ip: '203.0.113.9', headers: {} }) as unknown as FastifyRequest;

describe('rate-limit key', () => {
  it('is the verified client of the request', () => {
    const verified = request();
    assignRateLimitKey(verified, { clientId: 'pos-1', tenantId: 'acme' } as Principal, '1.1.1.1');
    expect(rateLimitKey(verified)).toBe('client:acme:pos-1');
  });

  it('is the client address when nothing was verified', () => {
    const anonymous = request();
    assignRateLimitKey(anonymous, undefined, '198.51.100.4');
    expect(rateLimitKey(anonymous)).toBe('ip:198.51.100.4');
    expect(rateLimitKey(request())).toBe('ip:203.0.113.9');
  });
});
