import { randomUUID } from 'node:crypto';
import fastify from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface TestIssuer {
  /** Serve as AUTH_URL: `/auth/{tenant}/.well-known/jwks.json` answers the issuer's key. */
  url: string;
  /** A valid access token of `tenantId` for `clientId` with these scopes. */
  token(tenantId: string, clientId: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A stand-in for the auth service's token side: one RS256 key, a JWKS per tenant, and tokens
 * the gateway's verifier accepts (issuer on COMANDA_PUBLIC_URL's default, audience and
 * environment defaults of @comanda/security).
 */
export async function startTestIssuer(publicUrl = 'http://localhost:3000'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const app = fastify();
  app.get('/auth/:tenant/.well-known/jwks.json', async () => ({ keys: [jwk] }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    token: (tenantId, clientId, scope = 'configs:read') =>
      new SignJWT({ tid: tenantId, client_id: clientId, scope, env: 'test' })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
        .setIssuer(`${publicUrl}/auth/${tenantId}`)
        .setAudience('comanda-api')
        .setSubject(clientId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey),
    close: () => app.close(),
  };
}
