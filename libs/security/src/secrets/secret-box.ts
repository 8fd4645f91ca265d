import { open, seal } from './sealed-box';
import type { EnvSnapshot } from '../security-settings';

/** The setting that holds the key, and the one that holds the key it replaces. */
export const SECRETS_KEY_VARIABLE = 'COMANDA_SECRETS_KEY';
export const PREVIOUS_SECRETS_KEY_VARIABLE = 'COMANDA_PREVIOUS_SECRETS_KEY';

/**
 * Seals the secrets a service must keep in clear to sign with (merchants' signing secrets)
 * before they reach its tables, with AES-256-GCM under `COMANDA_SECRETS_KEY`. The associated
 * label names the table and row, so a sealed value copied to another row does not open.
 * A value sealed under `COMANDA_PREVIOUS_SECRETS_KEY` still opens, and
 * {@link SecretBox.needsResealing} says which rows to seal again with the current key.
 */
export class SecretBox {
  constructor(
    private readonly key: Buffer,
    private readonly previousKey?: Buffer,
  ) {
    if (key.length !== 32) throw new Error('a secrets key is 32 bytes');
  }

  seal(plaintext: string, label: string): string {
    return seal(this.key, plaintext, label);
  }

  /** Throws when the value opens with neither key (another key, or a value moved between rows). */
  open(sealed: string, label: string): string {
    const opened = tryOpen(this.key, sealed, label);
    if (opened !== undefined) return opened;
    const previous = this.previousKey && tryOpen(this.previousKey, sealed, label);
    if (previous !== undefined) return previous;
    throw new Error(
      `a sealed secret (${label}) opens with neither ${SECRETS_KEY_VARIABLE} nor ${PREVIOUS_SECRETS_KEY_VARIABLE}`,
    );
  }

  /** Whether values sealed under a previous key may be left to re-seal. */
  get hasPreviousKey(): boolean {
    return this.previousKey !== undefined;
  }

  /** True for a value that opens only with the previous key: seal it again with the current. */
  needsResealing(sealed: string, label: string): boolean {
    return tryOpen(this.key, sealed, label) === undefined;
  }
}

/**
 * The box of a service from its environment snapshot. Required in every environment, like
 * auth's key encryption key (ADR 0015): standalone mode (`npm start`) makes one on first start
 * and keeps it in its data folder; a deployment sets it.
 */
export function secretBoxFrom(env: EnvSnapshot, service: string): SecretBox {
  const current = env[SECRETS_KEY_VARIABLE];
  if (!current) {
    throw new Error(
      `the ${service} service refuses to start without ${SECRETS_KEY_VARIABLE}, 32 bytes in base64 ` +
        '(`openssl rand -base64 32`); standalone mode (`npm start`) makes one in its data folder',
    );
  }
  const previous = env[PREVIOUS_SECRETS_KEY_VARIABLE];
  return new SecretBox(
    keyBytes(current, SECRETS_KEY_VARIABLE),
    previous ? keyBytes(previous, PREVIOUS_SECRETS_KEY_VARIABLE) : undefined,
  );
}

function keyBytes(value: string, name: string): Buffer {
  const key = /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
    ? Buffer.from(value.replace(/=$/, ''), 'base64url')
    : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes in base64`);
  return key;
}

function tryOpen(key: Buffer, sealed: string, label: string): string | undefined {
  try {
    return open(key, sealed, label);
  } catch {
    // Another key, another row, or not a sealed value: the caller decides what that means.
    return undefined;
  }
}
