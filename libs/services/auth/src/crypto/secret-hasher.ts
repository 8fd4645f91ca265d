import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Client secrets are 256-bit random values, so a keyed SHA-256 is as safe as a slow KDF
 * against guessing and keeps the token endpoint cheap (no CPU-bound denial of service).
 * The pepper keeps a stolen table useless without the service's key.
 */
export class SecretHasher {
  constructor(
    private readonly pepper: Buffer,
    /** A former pepper: hashes made before a change of pepper still match. */
    private readonly previousPepper?: Buffer,
  ) {}

  hash(secret: string): string {
    return hmac(this.pepper, secret);
  }

  matches(secret: string, storedHash: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    const equal = (hash: string) => {
      const actual = Buffer.from(hash, 'hex');
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    };
    if (equal(this.hash(secret))) return true;
    return this.previousPepper !== undefined && equal(hmac(this.previousPepper, secret));
  }
}

function hmac(pepper: Buffer, secret: string): string {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest('hex');
}
