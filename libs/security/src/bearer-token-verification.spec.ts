import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { connect } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';
import { currentContext } from '@comanda/context';
import { configureHttpApp, createFastifyAdapter } from '@comanda/http';
import { CurrentPrincipal } from './decorators/current-principal.decorator';
import { Public } from './decorators/public.decorator';
import { RequirePermission } from './decorators/require-permission.decorator';
import type { Principal } from './principal';
import { SecurityModule } from './security.module';

const PUBLIC_URL = 'https://api.comanda.test';
const AUDIENCE = 'comanda-api';

@Controller()
class ProbeController {
  @Get('configs')
  @RequirePermission('configs:read')
  read(@CurrentPrincipal() principal: Principal) {
    return {
      clientId: principal.clientId,
      tenantId: principal.tenantId,
      scopes: [...principal.scopes],
      contextTenant: currentContext()?.tenantId ?? null,
    };
  }

  @Get('admin/tenants')
  @RequirePermission('platform:admin')
  admin() {
    return { ok: true };
  }

  @Get('open')
  @Public()
  open() {
    return { ok: true };
  }

  @Post('uploads')
  @RequirePermission('configs:write')
  upload(@Body() body: Record<string, unknown>) {
    return { keys: Object.keys(body).length };
  }

  @Post('open-uploads')
  @Public()
  openUpload(@Body() body: Record<string, unknown>) {
    return { keys: Object.keys(body).length };
  }
}

/**
 * Sends a request's headers announcing a 500 KB JSON body and no byte of it, and gives what
 * the server answers within `waitMs` (empty when it is still waiting for the body).
 */
function headersOnly(url: string, path: string, authorization?: string, waitMs = 1500) {
  const { hostname, port } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-version: 0\r\ncontent-type: application/json\r\n` +
        `${authorization ? `authorization: ${authorization}\r\n` : ''}content-length: 500000\r\n\r\n`,
    );
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
  });
}

@Controller('undeclared')
class UndeclaredController {
  @Get()
  leak() {
    return { leaked: true };
  }
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
    publicPem: await exportSPKI(publicKey),
  };
}

function claims(tenantId: string, overrides: Record<string, unknown> = {}) {
  return {
    iss: `${PUBLIC_URL}/auth/${tenantId}`,
    sub: 'client-1',
    aud: AUDIENCE,
    client_id: 'client-1',
    scope: 'configs:read',
    tid: tenantId,
    env: 'test',
    jti: `jti-${Math.random()}`,
    ...overrides,
  };
}

async function sign(
  key: SigningKey,
  payload: Record<string, unknown>,
  { typ = 'at+jwt', kid = key.kid, expiresIn = '1h' as string | number } = {},
): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ, kid })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('bearer token verification (jose against the issuer JWKS)', () => {
  let jwksServer: Server;
  let jwksFetches = 0;
  let published: JWK[] = [];
  let key: SigningKey;
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    key = await signingKey('key-1');
    published = [key.publicJwk];
    jwksServer = createServer((request, response) => {
      const tenant = /^\/auth\/([a-z0-9-]+)\/\.well-known\/jwks\.json$/.exec(
        request.url ?? '',
      )?.[1];
      if (tenant?.startsWith('unknown-')) {
        // What the auth service answers for a tenant it does not have.
        response.statusCode = 404;
        response.setHeader('content-type', 'application/problem+json');
        response.end(JSON.stringify({ status: 404, code: 'auth.tenant_not_found' }));
      } else if (tenant?.startsWith('broken-')) {
        response.statusCode = 500;
        response.end();
      } else if (tenant) {
        jwksFetches++;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ keys: published }));
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const authUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;

    @Module({
      imports: [
        SecurityModule.forService({
          env: { COMANDA_PUBLIC_URL: PUBLIC_URL, AUTH_URL: authUrl, COMANDA_ENVIRONMENT: 'test' },
        }),
      ],
      controllers: [ProbeController],
    })
    class ProbeModule {}

    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, createFastifyAdapter(), {
      logger: false,
    });
    configureHttpApp(app, { serviceName: 'probe' });
    await app.listen(0, '127.0.0.1');
    baseUrl = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  const call = (path: string, token?: string, authorization = token && `Bearer ${token}`) =>
    fetch(`${baseUrl}${path}`, {
      headers: { 'x-api-version': '0', ...(authorization ? { authorization } : {}) },
    });

  async function expectInvalidToken(token: string, description: RegExp) {
    const response = await call('/configs', token);
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(
      /^Bearer realm="comanda", error="invalid_token", error_description="/,
    );
    expect(challenge).toMatch(description);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 401, code: 'auth.invalid_token' });
  }

  it('lets a valid token through with its principal and sets the tenant of the request context', async () => {
    const response = await call('/configs', await sign(key, claims('tenant-a')));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      clientId: 'client-1',
      tenantId: 'tenant-a',
      scopes: ['configs:read'],
      contextTenant: 'tenant-a',
    });
  });

  it('answers 401 with a bare Bearer challenge and no error code when no token is sent', async () => {
    const response = await call('/configs');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="comanda"');
    expect(await response.json()).toMatchObject({ status: 401, code: 'auth.token_missing' });
  });

  it('treats another authorization scheme as no bearer token', async () => {
    const response = await call('/configs', undefined, 'Basic Y2xpZW50OnNlY3JldA==');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="comanda"');
  });

  it('opens @Public routes without a token', async () => {
    expect((await call('/open')).status).toBe(200);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const token = `${b64({ alg: 'none', typ: 'at+jwt', kid: key.kid })}.${b64({
      ...claims('tenant-a'),
      exp: Math.floor(Date.now() / 1000) + 600,
    })}.`;
    await expectInvalidToken(token, /algorithm none is not accepted/);
  });

  it('refuses a token signed with HS256 using the public key as the secret', async () => {
    const token = await new SignJWT(claims('tenant-a'))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(key.publicPem));
    await expectInvalidToken(token, /algorithm HS256 is not accepted/);
  });

  it('refuses a token whose typ is not at+jwt', async () => {
    await expectInvalidToken(await sign(key, claims('tenant-a'), { typ: 'JWT' }), /typ/);
  });

  it("refuses a token carrying another tenant's issuer", async () => {
    const token = await sign(key, claims('tenant-a', { iss: `${PUBLIC_URL}/auth/tenant-b` }));
    await expectInvalidToken(token, /issuer/);
  });

  it('refuses a token for another audience', async () => {
    await expectInvalidToken(await sign(key, claims('tenant-a', { aud: 'other-api' })), /aud/);
  });

  it('refuses an expired token', async () => {
    const token = await sign(key, claims('tenant-a'), {
      expiresIn: Math.floor(Date.now() / 1000) - 60,
    });
    await expectInvalidToken(token, /expired/);
  });

  it('refuses a token signed by an unknown key', async () => {
    const stranger = await signingKey('stranger');
    await expectInvalidToken(await sign(stranger, claims('tenant-a')), /unknown/);
  });

  it('refuses a token naming a tenant the issuer does not know, as invalid_token rather than 503', async () => {
    const response = await call('/configs', await sign(key, claims('unknown-tenant')));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token".*tenant/);
    expect(await response.json()).toMatchObject({ status: 401, code: 'auth.invalid_token' });
  });

  it('answers 503 with Retry-After when the issuer cannot serve its keys', async () => {
    const response = await call('/configs', await sign(key, claims('broken-tenant')));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ status: 503, code: 'auth.keys_unavailable' });
  });

  it('refuses a token whose payload was altered after signing', async () => {
    const [header, , signature] = (await sign(key, claims('tenant-a'))).split('.');
    const widened = b64({
      ...claims('tenant-a', { scope: 'configs:read platform:admin' }),
      exp: 4102444800,
    });
    await expectInvalidToken(`${header}.${widened}.${signature}`, /signature/);
  });

  it('refuses a token of another deployment environment', async () => {
    await expectInvalidToken(
      await sign(key, claims('tenant-a', { env: 'production' })),
      /environment/,
    );
  });

  it('answers 403 insufficient_scope naming the needed permission', async () => {
    const response = await call(
      '/configs',
      await sign(key, claims('tenant-a', { scope: 'orders:read' })),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="comanda", error="insufficient_scope", scope="configs:read"',
    );
    expect(await response.json()).toMatchObject({ status: 403, code: 'auth.insufficient_scope' });
  });

  it('honours platform:admin only on a token of the platform tenant', async () => {
    const tenantAdmin = await sign(key, claims('tenant-a', { scope: 'platform:admin' }));
    expect((await call('/admin/tenants', tenantAdmin)).status).toBe(403);
    const platformAdmin = await sign(key, claims('platform', { scope: 'platform:admin' }));
    expect((await call('/admin/tenants', platformAdmin)).status).toBe(200);
  });

  it('refetches the JWKS for a new kid (key rotation) after the cool-down and keeps accepting the previous key', async () => {
    const next = await signingKey('key-2');
    published = [key.publicJwk, next.publicJwk];
    // The last fetch for tenant-a is under a minute old: move the verifier's clock past the
    // cool-down (60 s / JWKS_REQUESTS_PER_MINUTE).
    const later = Date.now() + 61_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => later);
    try {
      const before = jwksFetches;
      expect((await call('/configs', await sign(next, claims('tenant-a')))).status).toBe(200);
      expect(jwksFetches).toBe(before + 1);
      expect((await call('/configs', await sign(key, claims('tenant-a')))).status).toBe(200);
      expect((await call('/configs', await sign(next, claims('tenant-a')))).status).toBe(200);
      expect(jwksFetches).toBe(before + 1);
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps serving a real client while 1,000 forged tokens with random kids arrive, with at most one key refetch', async () => {
    const real = await sign(key, claims('tenant-forged'));
    expect((await call('/configs', real)).status).toBe(200);
    const before = jwksFetches;
    const forger = await signingKey('forger');
    const outcomes = { forged: new Map<number, number>(), real: new Map<number, number>() };
    const count = (map: Map<number, number>, status: number) =>
      map.set(status, (map.get(status) ?? 0) + 1);
    for (let batch = 0; batch < 20; batch++) {
      const forged = await Promise.all(
        Array.from({ length: 50 }, () =>
          sign(forger, claims('tenant-forged'), { kid: `kid-${Math.random().toString(36)}` }),
        ),
      );
      const answers = await Promise.all([
        ...forged.map(async (token) => ['forged', (await call('/configs', token)).status] as const),
        (async () => ['real', (await call('/configs', real)).status] as const)(),
        (async () =>
          [
            'real',
            (await call('/configs', await sign(key, claims('tenant-forged')))).status,
          ] as const)(),
      ]);
      for (const [kind, status] of answers) count(outcomes[kind], status);
    }
    expect(Object.fromEntries(outcomes.forged)).toEqual({ 401: 1000 });
    expect(Object.fromEntries(outcomes.real)).toEqual({ 200: 40 });
    expect(jwksFetches - before).toBeLessThanOrEqual(1);
  }, 30_000);

  it('answers every one of a burst of concurrent requests with its own principal while the keys load', async () => {
    // A tenant not seen before: every request of the burst waits on the same JWKS fetch,
    // so their verifications are in flight together.
    const clients = Array.from({ length: 30 }, (_unused, index) => ({
      clientId: `client-${index}`,
      tenantId: `tenant-burst-${index % 3}`,
    }));
    const tokens = await Promise.all(
      clients.map(({ clientId, tenantId }) =>
        sign(key, claims(tenantId, { sub: clientId, client_id: clientId })),
      ),
    );
    const answers = await Promise.all(
      tokens.map(async (token) => {
        const response = await fetch(`${baseUrl}/configs`, {
          headers: { 'x-api-version': '0', authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(5000),
        }).catch((error: unknown) => ({
          status: `no answer (${String(error)})`,
          json: () => null,
        }));
        return { status: response.status, body: (await response.json()) as unknown };
      }),
    );
    expect(answers).toEqual(
      clients.map(({ clientId, tenantId }) => ({
        status: 200,
        body: { clientId, tenantId, scopes: ['configs:read'], contextTenant: tenantId },
      })),
    );
  }, 15_000);

  it('refuses a request to a protected route from its headers, before its body arrives, and closes the connection', async () => {
    for (const authorization of [undefined, 'Bearer not.a.token']) {
      const answer = await headersOnly(baseUrl, '/uploads', authorization);
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain('application/problem+json');
    }
  });

  it('waits for the body of a request with a valid token, and of a public route', async () => {
    const token = await sign(key, claims('tenant-a', { scope: 'configs:write' }));
    expect(await headersOnly(baseUrl, '/uploads', `Bearer ${token}`)).toBe('');
    expect(await headersOnly(baseUrl, '/open-uploads')).toBe('');
    const response = await fetch(`${baseUrl}/uploads`, {
      method: 'POST',
      headers: {
        'x-api-version': '0',
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ a: 1, b: 2 }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ keys: 2 });
  });

  it('refuses to boot when a route declares neither a permission nor @Public', async () => {
    @Module({
      imports: [SecurityModule.forService({ env: { COMANDA_PUBLIC_URL: PUBLIC_URL } })],
      controllers: [UndeclaredController],
    })
    class LeakyModule {}
    const leaky = await NestFactory.create<NestFastifyApplication>(
      LeakyModule,
      createFastifyAdapter(),
      {
        logger: false,
        abortOnError: false,
      },
    );
    await expect(leaky.init()).rejects.toThrow(/GET UndeclaredController\.leak/);
    await leaky.close();
  });
});
