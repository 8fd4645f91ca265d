import { createDecipheriv, scryptSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CliError } from '../cli-error';

/** What `login --credentials-file` needs from a file: who to log in as, and where. */
export interface FileCredentials {
  clientId: string;
  clientSecret: string;
  /** The tenants the client may ask tokens for, when the file says. */
  tenantIds?: string[];
  /** `POST …/auth/{tenant}/connect/token` per tenant, when the file says. */
  tokenEndpoints?: Record<string, string>;
}

const FORMAT = 'comanda-credentials/v1';

interface Envelope {
  format: string;
  kdf: { name: string; N: number; r: number; p: number; salt: string };
  iv: string;
  tag: string;
  ciphertext: string;
}

/**
 * Reads the two kinds of credentials file: the plain `admin-credentials.json` standalone mode
 * writes (0600) in its data folder, and the encrypted `comanda-credentials/v1` file
 * `admin clients create --credentials-file` hands to an integrator (AES-256-GCM under a key
 * scrypt derives from the passphrase that travels separately; see ADR 0005).
 */
export async function readCredentialsFile(
  path: string,
  passphrase: string | undefined,
): Promise<FileCredentials> {
  let value: Partial<FileCredentials & Envelope>;
  try {
    value = JSON.parse(await readFile(path, 'utf8')) as Partial<FileCredentials & Envelope>;
  } catch (error) {
    throw new CliError(`cannot read the credentials file ${path}: ${(error as Error).message}`);
  }
  if (value.format === FORMAT) {
    if (!passphrase) {
      throw new CliError(
        `${path} is encrypted: give its passphrase in COMANDA_CREDENTIALS_PASSPHRASE (or --passphrase-file)`,
      );
    }
    return decrypt(value as Envelope, passphrase, path);
  }
  if (typeof value.clientId === 'string' && typeof value.clientSecret === 'string') {
    return { clientId: value.clientId, clientSecret: value.clientSecret };
  }
  throw new CliError(`${path} is not a Comanda credentials file`);
}

// The inverse of the auth service's `encryptCredentialsFile`, kept here rather than imported:
// `@comanda/service-auth` would load the whole service (Nest, TypeORM) into every CLI call.
// The auth service's tests and `cli.e2e-spec.ts` (a file it wrote, opened here) keep them in step.
function decrypt(envelope: Envelope, passphrase: string, path: string): FileCredentials {
  try {
    const { N, r, p, salt } = envelope.kdf;
    const key = scryptSync(passphrase, Buffer.from(salt, 'base64url'), 32, { N, r, p });
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'));
    decipher.setAAD(Buffer.from(FORMAT));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64url'));
    const plaintext = Buffer.concat([
      decipher.update(Buffer.from(envelope.ciphertext, 'base64url')),
      decipher.final(),
    ]);
    return JSON.parse(plaintext.toString('utf8')) as FileCredentials;
  } catch {
    throw new CliError(`cannot open ${path}: wrong passphrase, or the file was altered`);
  }
}
