import type { FastifyRequest } from 'fastify';
import { rateLimitKey } from './rate-limit-key';

const requestWith = (authorization?: string) =>
  ({
    ip: '203.0.113.9',
    headers: authorization === undefined ? {} : { authorization },
  }) as unknown as FastifyRequest;

const jwt = (payload: unknown) =>
  `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;

describe('rate-limit key', () => {
  it('is the client_id claim of a bearer token', () => {
    expect(rateLimitKey(requestWith(`Bearer ${jwt({ client_id: 'pos-1' })}`))).toBe('client:pos-1');
  });

  it.each([
    ['no Authorization header', undefined],
    ['a Basic header', 'Basic eDp5'],
    ['a token that is not a JWT', 'Bearer opaque'],
    ['a payload that is not JSON', 'Bearer a.bm90IGpzb24.c'],
    ['a token without client_id', `Bearer ${jwt({ sub: 'x' })}`],
    ['a client_id that is not a plain id', `Bearer ${jwt({ client_id: 'a b\n' })}`],
  ])('falls back to the IP address for %s', (_case, authorization) => {
    expect(rateLimitKey(requestWith(authorization))).toBe('ip:203.0.113.9');
  });
});
