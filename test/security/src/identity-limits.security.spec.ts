import { createHmac, randomUUID } from 'node:crypto';
import { adminCall, adminToken, expectPlatformServing, V0 } from './support/clients';
import { attackerFetch, decodePart, forgedJwt } from './support/attacker';
import { startPlatformProcess, type PlatformProcess } from './support/platform-process';

describe('rows 3 and 5 (high, medium): rate limits, lockouts and key refetches an attacker cannot aim', () => {
  let platform: PlatformProcess;
  let realToken: string;

  beforeAll(async () => {
    platform = await startPlatformProcess('identity', {
      env: { GATEWAY_RATE_LIMIT_MAX: '100', GATEWAY_RATE_LIMIT_WINDOW_MS: '60000' },
    });
    realToken = await adminToken(platform);
  });
  afterAll(() => platform?.close());

  it('counts forged tokens naming a victim against the sender, never against the victim', async () => {
    const attacker = attackerFetch('127.0.0.3');
    const claims = decodePart(realToken, 1);
    const header = decodePart(realToken, 0);
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 110; i++) {
        const forged = forgedJwt(header, { ...claims, jti: randomUUID(), sub: claims.sub });
        const response = await attacker(`${platform.baseUrl}/admin/tenants`, {
          headers: { ...V0, authorization: `Bearer ${forged}` },
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    } finally {
      await attacker.close();
    }
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // The victim's own budget is whole: 20 calls in a row all answer.
    for (let i = 0; i < 20; i++)
      expect((await adminCall(platform, '/admin/tenants')).status).toBe(200);
    await expectPlatformServing(platform);
  });

  it('locks out only the guessing address when a stranger tries wrong secrets for a known client', async () => {
    const stranger = attackerFetch('127.0.0.2');
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 14; i++) {
        const response = await stranger(`${platform.baseUrl}/auth/platform/connect/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${platform.admin.clientId}&client_secret=wrong-${i}`,
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    } finally {
      await stranger.close();
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    // The real client, from its own address, still gets tokens.
    const response = await fetch(`${platform.baseUrl}/auth/platform/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: platform.admin.clientId,
        client_secret: platform.admin.clientSecret,
      }).toString(),
    });
    expect(response.status).toBe(200);
    await expectPlatformServing(platform);
  });

  it('keeps verifying a tenant real tokens while forged tokens with random kids and its issuer arrive', async () => {
    const attacker = attackerFetch('127.0.0.4');
    const claims = decodePart(realToken, 1);
    const failures: number[] = [];
    try {
      for (let round = 0; round < 25; round++) {
        const forged = await Promise.all(
          Array.from({ length: 8 }, async () => {
            const token = forgedJwt(
              { alg: 'ES256', typ: 'at+jwt', kid: randomUUID() },
              { ...claims, jti: randomUUID() },
            );
            const response = await attacker(`${platform.baseUrl}/admin/tenants`, {
              headers: { ...V0, authorization: `Bearer ${token}` },
            });
            await response.arrayBuffer();
            return response.status;
          }),
        );
        expect(forged.every((status) => status === 401 || status === 429)).toBe(true);
        const real = await adminCall(platform, '/admin/tenants');
        await real.arrayBuffer();
        if (real.status !== 200) failures.push(real.status);
      }
    } finally {
      await attacker.close();
    }
    expect(failures).toEqual([]);
    await expectPlatformServing(platform);
  });

  it.each([
    [
      'alg none',
      (token: string) =>
        forgedJwt({ ...decodePart(token, 0), alg: 'none' }, decodePart(token, 1), ''),
    ],
    [
      'HS256 keyed with the public key',
      (token: string) => {
        const header = { ...decodePart(token, 0), alg: 'HS256' };
        const body = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${token.split('.')[1]}`;
        const signature = createHmac('sha256', JSON.stringify(decodePart(token, 0)))
          .update(body)
          .digest('base64url');
        return `${body}.${signature}`;
      },
    ],
    [
      'another tenant in a signed token',
      (token: string) =>
        forgedJwt(
          decodePart(token, 0),
          { ...decodePart(token, 1), tid: 'other' },
          token.split('.')[2],
        ),
    ],
    [
      'an expired token',
      (token: string) =>
        forgedJwt(decodePart(token, 0), { ...decodePart(token, 1), exp: 1 }, token.split('.')[2]),
    ],
    [
      'another issuer',
      (token: string) =>
        forgedJwt(
          decodePart(token, 0),
          { ...decodePart(token, 1), iss: 'https://evil.example/auth/platform' },
          token.split('.')[2],
        ),
    ],
  ])(
    'refuses a forged token (%s) with 401 and keeps serving (held before; kept)',
    async (_case, forge) => {
      const response = await fetch(`${platform.baseUrl}/admin/tenants`, {
        headers: { ...V0, authorization: `Bearer ${forge(realToken)}` },
      });
      expect(response.status).toBe(401);
      await expectPlatformServing(platform);
    },
  );
});
