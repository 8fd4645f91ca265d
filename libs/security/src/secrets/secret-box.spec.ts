import { randomBytes } from 'node:crypto';
import { SecretBox, secretBoxFrom } from './secret-box';

const key = () => randomBytes(32);

describe('SecretBox', () => {
  it('seals to something other than the secret, and opens it back', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('whsec-ünïcode-0123456789', 'merchants:m-1');
    expect(sealed).not.toContain('whsec');
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed, 'merchants:m-1')).toBe('whsec-ünïcode-0123456789');
    // A fresh IV each time: equal secrets do not show as equal columns.
    expect(box.seal('same', 'merchants:m-1')).not.toBe(box.seal('same', 'merchants:m-1'));
  });

  it('refuses a value moved to another row, and a value sealed under another key', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('secret', 'merchants:m-1');
    expect(() => box.open(sealed, 'merchants:m-2')).toThrow(/opens with neither/);
    expect(() => new SecretBox(key()).open(sealed, 'merchants:m-1')).toThrow(/opens with neither/);
    expect(() => box.open('secret', 'merchants:m-1')).toThrow(/opens with neither/);
  });

  it('opens values sealed under the previous key and says they need re-sealing', () => {
    const previous = key();
    const old = new SecretBox(previous).seal('secret', 'merchants:m-1');
    const box = new SecretBox(key(), previous);
    expect(box.hasPreviousKey).toBe(true);
    expect(box.open(old, 'merchants:m-1')).toBe('secret');
    expect(box.needsResealing(old, 'merchants:m-1')).toBe(true);
    expect(box.needsResealing(box.seal('secret', 'merchants:m-1'), 'merchants:m-1')).toBe(false);
  });
});

describe('secretBoxFrom', () => {
  it('refuses to start without COMANDA_SECRETS_KEY, naming the service and the fix', () => {
    expect(() => secretBoxFrom({}, 'payments')).toThrow(
      /the payments service refuses to start without COMANDA_SECRETS_KEY.*openssl rand -base64 32/,
    );
  });

  it('refuses a key that is not 32 bytes in base64', () => {
    expect(() => secretBoxFrom({ COMANDA_SECRETS_KEY: 'short' }, 'payments')).toThrow(
      'COMANDA_SECRETS_KEY must be 32 bytes in base64',
    );
    expect(() =>
      secretBoxFrom(
        {
          COMANDA_SECRETS_KEY: randomBytes(32).toString('base64'),
          COMANDA_PREVIOUS_SECRETS_KEY: 'x'.repeat(44),
        },
        'payments',
      ),
    ).toThrow('COMANDA_PREVIOUS_SECRETS_KEY must be 32 bytes in base64');
  });

  it('takes base64 (openssl rand -base64 32) and base64url alike', () => {
    const bytes = randomBytes(32);
    const sealed = secretBoxFrom(
      { COMANDA_SECRETS_KEY: bytes.toString('base64') },
      'payments',
    ).seal('secret', 'row');
    const box = secretBoxFrom({ COMANDA_SECRETS_KEY: bytes.toString('base64url') }, 'payments');
    expect(box.open(sealed, 'row')).toBe('secret');
    expect(box.hasPreviousKey).toBe(false);
  });
});
