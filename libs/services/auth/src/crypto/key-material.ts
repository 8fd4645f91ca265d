import type { AuthConfig } from '../auth.config';

export interface KeyMaterial {
  /** AES-256 key that encrypts signing keys at rest. */
  keyEncryptionKey: Buffer;
  /** HMAC key of client secret hashes. */
  secretPepper: Buffer;
  /** A former key encryption key: rows still sealed with it are re-sealed at start. */
  previousKeyEncryptionKey?: Buffer;
  /** A former pepper: hashes made with it still match (secrets cannot be re-hashed). */
  previousSecretPepper?: Buffer;
}

/**
 * The keys the auth service holds outside the database. Required in every environment: a
 * key derived from a constant would let anyone who reads the database decrypt the signing
 * keys and mint tokens. Standalone mode (`npm start`) makes random ones on first start and
 * keeps them in its data folder (mode 0600), so it still works with nothing set.
 */
export function keyMaterialFrom(config: AuthConfig): KeyMaterial {
  const missing = [
    config.AUTH_KEY_ENCRYPTION_KEY ? undefined : 'AUTH_KEY_ENCRYPTION_KEY',
    config.AUTH_SECRET_PEPPER ? undefined : 'AUTH_SECRET_PEPPER',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0) {
    throw new Error(
      `the auth service refuses to start without ${missing.join(' and ')} ` +
        '(standalone mode, `npm start`, makes and keeps random ones in its data folder)',
    );
  }
  return {
    keyEncryptionKey: encryptionKey(config.AUTH_KEY_ENCRYPTION_KEY, 'AUTH_KEY_ENCRYPTION_KEY'),
    secretPepper: pepperBytes(config.AUTH_SECRET_PEPPER as string),
    previousKeyEncryptionKey: config.AUTH_PREVIOUS_KEY_ENCRYPTION_KEY
      ? encryptionKey(config.AUTH_PREVIOUS_KEY_ENCRYPTION_KEY, 'AUTH_PREVIOUS_KEY_ENCRYPTION_KEY')
      : undefined,
    previousSecretPepper: config.AUTH_PREVIOUS_SECRET_PEPPER
      ? pepperBytes(config.AUTH_PREVIOUS_SECRET_PEPPER)
      : undefined,
  };
}

function encryptionKey(value: string | undefined, name: string): Buffer {
  const key = Buffer.from((value ?? '').replace(/=$/, ''), 'base64url');
  if (key.length !== 32) throw new Error(`${name} must decode to 32 bytes`);
  return key;
}

/** A pepper is used as its UTF-8 bytes, or `base64:<base64url>` for raw bytes. */
function pepperBytes(value: string): Buffer {
  return value.startsWith('base64:')
    ? Buffer.from(value.slice('base64:'.length), 'base64url')
    : Buffer.from(value, 'utf8');
}
