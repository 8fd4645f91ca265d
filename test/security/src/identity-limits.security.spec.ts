import { createHmac, randomUUID } from 'node:crypto';
import { adminCall, adminToken, expectPlatformServing, V0 } from './support/clients';
import { attackerFetch, decodePart, forgedJwt } from './support/attacker';
import { startDeployment, type Deployment } from './support/deployment';

describe('rows 3 and 5 (high, medium): rate limits, lockouts and key refetches an attacker cannot aim', () => {
  let deployment: Deployment;
  let realToken: string;

  beforeAll(async () => {
    deployment = await startDeployment('identity', {
      env: { GATEWAY_RATE_LIMIT_MAX: '100', GATEWAY_RATE_LIMIT_WINDOW_MS: '60000' },
    });
    realToken = await adminToken(deployment);
  });
  afterAll(() => deployment?.close());

  it('counts forged tokens naming a victim against the sender, never against the victim', async () => {
    const attacker = attackerFetch('127.0.0.3');
    const claims = decodePart(realToken, 1);
    const header = decodePart(realToken, 0);
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 110; i++) {
        const forged = forgedJwt(header, { ...claims, jti: randomUUID(), sub: claims.sub });
        const response = await attacker(`${deployment.baseUrl}/admin/tenants`, {
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
      expect((await adminCall(deployment, '/admin/tenants')).status).toBe(200);
    await expectPlatformServing(deployment);
  });

  it('locks out only the guessing address when a stranger tries wrong secrets for a known client', async () => {
    // Through the public port, and distributed, on the auth service's own port as well, where
    // the stranger also names the real client's address (127.0.0.1) as the forwarded one.
    const targets = [
      { url: deployment.baseUrl, address: '127.0.0.2', forwarded: {} },
      ...deployment.internal
        .filter((service) => service.name === 'auth')
        .map((auth) => ({
          url: auth.url,
          address: '127.0.0.5',
          forwarded: { 'x-forwarded-for': '127.0.0.1' },
        })),
    ];
    const tokenRequest = (secret: string, headers: Record<string, string> = {}) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: deployment.admin.clientId,
        client_secret: secret,
      }).toString(),
    });
    for (const { url, address, forwarded } of targets) {
      const stranger = attackerFetch(address);
      const statuses: number[] = [];
      try {
        for (let i = 0; i < 14; i++) {
          const response = await stranger(
            `${url}/auth/platform/connect/token`,
            tokenRequest(`wrong-${i}`, forwarded),
          );
          await response.arrayBuffer();
          statuses.push(response.status);
        }
      } finally {
        await stranger.close();
      }
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(4).fill(429)]);
      // The real client, from its own address, still gets tokens, there and on every port.
      for (const { url: at } of targets) {
        const response = await fetch(
          `${at}/auth/platform/connect/token`,
          tokenRequest(deployment.admin.clientSecret),
        );
        expect({ at, status: response.status }).toEqual({ at, status: 200 });
      }
    }
    await expectPlatformServing(deployment);
  });

  it('keeps verifying a tenant real tokens while forged tokens with random kids and its issuer arrive', async () => {
    const attacker = attackerFetch('127.0.0.4');
    const claims = decodePart(realToken, 1);
    // The public port, and distributed, every service's own port: each verifies by itself.
    const targets = [
      { name: 'public port', url: `${deployment.baseUrl}/admin/tenants` },
      ...deployment.internal.map((service) => ({
        name: service.name,
        url: `${service.url}/admin/dead-letters`,
      })),
    ];
    const failures: string[] = [];
    try {
      for (let round = 0; round < 25; round++) {
        const forged = await Promise.all(
          targets.flatMap(({ name, url }) =>
            Array.from({ length: name === 'public port' ? 8 : 2 }, async () => {
              const token = forgedJwt(
                { alg: 'ES256', typ: 'at+jwt', kid: randomUUID() },
                { ...claims, jti: randomUUID() },
              );
              const response = await attacker(url, {
                headers: { ...V0, authorization: `Bearer ${token}` },
              });
              await response.arrayBuffer();
              return { name, status: response.status };
            }),
          ),
        );
        for (const { name, status } of forged) {
          if (status !== 401 && status !== 429) failures.push(`forged at ${name}: ${status}`);
        }
        for (const { name, url } of targets) {
          const real = await fetch(url, {
            headers: { ...V0, authorization: `Bearer ${realToken}` },
          });
          await real.arrayBuffer();
          if (real.status !== 200) failures.push(`real at ${name}: ${real.status}`);
        }
      }
    } finally {
      await attacker.close();
    }
    expect(failures).toEqual([]);
    await expectPlatformServing(deployment);
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
    'refuses a forged token (%s) with 401 on every port and keeps serving (held before; kept)',
    async (_case, forge) => {
      const targets = [
        `${deployment.baseUrl}/admin/tenants`,
        // Distributed: each service verifies every token itself, on its own port too.
        ...deployment.internal.map((service) => `${service.url}/admin/dead-letters`),
      ];
      for (const url of targets) {
        const response = await fetch(url, {
          headers: { ...V0, authorization: `Bearer ${forge(realToken)}` },
        });
        expect({ url, status: response.status }).toEqual({ url, status: 401 });
      }
      await expectPlatformServing(deployment);
    },
  );
});
