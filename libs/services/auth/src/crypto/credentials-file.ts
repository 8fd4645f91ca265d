import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

/** What a credentials file holds once decrypted. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  tenantIds: string[];
  environment: 'test' | 'production';
  scope: string;
  /** One token endpoint per tenant. */
  tokenEndpoints: Record<string, string>;
}

export const CREDENTIALS_FILE_FORMAT = 'comanda-credentials/v1';

interface CredentialsFileEnvelope {
  format: typeof CREDENTIALS_FILE_FORMAT;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  iv: string;
  tag: string;
  ciphertext: string;
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

/** A passphrase of 192 random bits, to travel by another channel than the file. */
export function generatePassphrase(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The credentials as a JSON file: AES-256-GCM under a key derived with scrypt from the
 * passphrase (random salt and IV). See docs/adr/0005-tokens-and-permissions.md.
 */
export function encryptCredentialsFile(credentials: ClientCredentials, passphrase: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = scryptSync(passphrase, salt, 32, SCRYPT);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(CREDENTIALS_FILE_FORMAT));
  const ciphertext = Buffer.concat([
    cipher.update(JSON.stringify(credentials), 'utf8'),
    cipher.final(),
  ]);
  const envelope: CredentialsFileEnvelope = {
    format: CREDENTIALS_FILE_FORMAT,
    kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64url') },
    cipher: 'aes-256-gcm',
    iv: iv.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
  };
  return JSON.stringify(envelope);
}

/** Opens a credentials file; throws when the passphrase is wrong or the file was altered. */
export function decryptCredentialsFile(file: string, passphrase: string): ClientCredentials {
  const envelope = JSON.parse(file) as CredentialsFileEnvelope;
  if (envelope.format !== CREDENTIALS_FILE_FORMAT || envelope.kdf?.name !== 'scrypt') {
    throw new Error('not a Comanda credentials file');
  }
  const { N, r, p, salt } = envelope.kdf;
  const key = scryptSync(passphrase, Buffer.from(salt, 'base64url'), 32, { N, r, p });
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'));
  decipher.setAAD(Buffer.from(CREDENTIALS_FILE_FORMAT));
  decipher.setAuthTag(Buffer.from(envelope.tag, 'base64url'));
  const plaintext = Buffer.concat([
    decipher.update(Buffer.from(envelope.ciphertext, 'base64url')),
    decipher.final(),
  ]);
  return JSON.parse(plaintext.toString('utf8')) as ClientCredentials;
}
