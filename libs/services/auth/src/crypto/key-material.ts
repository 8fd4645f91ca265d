import { createHash } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import type { AuthConfig } from '../auth.config';

export interface KeyMaterial {
  /** AES-256 key that encrypts signing keys at rest. */
  keyEncryptionKey: Buffer;
  /** HMAC key of client secret hashes. */
  secretPepper: Buffer;
}

/**
 * The keys the auth service holds outside the database. In production both must be set;
 * in the test environment a fixed development key stands in (so standalone mode works with
 * nothing set, and keeps working across restarts) and a warning says so.
 */
export function keyMaterialFrom(config: AuthConfig, logger: Pick<Logger, 'warn'>): KeyMaterial {
  const missing = [
    config.AUTH_KEY_ENCRYPTION_KEY ? undefined : 'AUTH_KEY_ENCRYPTION_KEY',
    config.AUTH_SECRET_PEPPER ? undefined : 'AUTH_SECRET_PEPPER',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0 && config.COMANDA_ENVIRONMENT === 'production') {
    throw new Error(
      `the auth service refuses to start in production without ${missing.join(' and ')}`,
    );
  }
  if (missing.length > 0) {
    logger.warn(
      `${missing.join(' and ')} not set: using a development key (never do this in production)`,
    );
  }
  const keyEncryptionKey = config.AUTH_KEY_ENCRYPTION_KEY
    ? Buffer.from(config.AUTH_KEY_ENCRYPTION_KEY.replace(/=$/, ''), 'base64url')
    : developmentKey('key-encryption');
  if (keyEncryptionKey.length !== 32)
    throw new Error('AUTH_KEY_ENCRYPTION_KEY must decode to 32 bytes');
  return {
    keyEncryptionKey,
    secretPepper: config.AUTH_SECRET_PEPPER
      ? Buffer.from(config.AUTH_SECRET_PEPPER, 'utf8')
      : developmentKey('secret-pepper'),
  };
}

function developmentKey(purpose: string): Buffer {
  return createHash('sha256').update(`comanda development key: ${purpose}`).digest();
}
