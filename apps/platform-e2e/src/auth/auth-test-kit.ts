import { createDecipheriv, createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { Client } from 'pg';
import { SignJWT } from 'jose';
import type { TestPlatform } from '../support/platform';

/** Fixed keys for the suites that need to read what the auth service stores. */
export const AUTH_KEYS_ENV = {
  AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
  AUTH_SECRET_PEPPER: randomBytes(32).toString('base64url'),
};

export async function query<T>(
  platform: TestPlatform,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: platform.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * The platform's current private signing key, read from the database and opened with the
 * key encryption key the suite configured (format `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM,
 * kid as associated data). Lets a test sign tokens that are wrong in exactly one way.
 */
export async function currentSigningKey(
  platform: TestPlatform,
): Promise<{ kid: string; privateKey: KeyObject }> {
  const [row] = await query<{ kid: string; private_key_sealed: string }>(
    platform,
    `SELECT kid, private_key_sealed FROM auth.signing_keys WHERE status = 'current'`,
  );
  const [, iv, tag, ciphertext] = row.private_key_sealed.split('.');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(AUTH_KEYS_ENV.AUTH_KEY_ENCRYPTION_KEY, 'base64url'),
    Buffer.from(iv, 'base64url'),
  );
  decipher.setAAD(Buffer.from(row.kid));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const pem = Buffer.concat([
    decipher.update(Buffer.from(ciphertext, 'base64url')),
    decipher.final(),
  ]).toString();
  return { kid: row.kid, privateKey: createPrivateKey(pem) };
}

export interface ForgeOptions {
  typ?: string;
  kid?: string;
  claims?: Record<string, unknown>;
  expiresAt?: number;
}

/** A token signed with the given key, valid for `tenantId` unless `options` change it. */
export function signToken(
  platform: TestPlatform,
  key: { kid: string; privateKey: KeyObject },
  tenantId: string,
  options: ForgeOptions = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: `http://localhost:${platform.port}/auth/${tenantId}`,
    sub: 'forger',
    aud: 'comanda-api',
    client_id: 'forger',
    scope: 'connections:read',
    tid: tenantId,
    env: 'test',
    jti: randomBytes(8).toString('hex'),
    iat: now,
    nbf: now,
    exp: options.expiresAt ?? now + 600,
    ...options.claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'at+jwt', kid: options.kid ?? key.kid })
    .sign(key.privateKey);
}

/** GET through the gateway with the standard headers. */
export function get(
  platform: TestPlatform,
  path: string,
  token?: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${platform.baseUrl}${path}`, {
    headers: {
      'x-api-version': '0',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
}
