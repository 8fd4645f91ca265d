import { signBody, verifySignature } from './signature';

describe('Comanda-Signature', () => {
  const secret = 'whsec-ünïcode';
  const body = Buffer.from('{"eventId":"e-1","type":"registration_succeeded"}');
  const now = 1_800_000_000;

  it('accepts a signature made over the same bytes with the same secret', () => {
    expect(verifySignature(signBody(secret, body, now), body, secret, now)).toEqual({
      valid: true,
    });
  });

  it('rejects a tampered body, a wrong secret, an old timestamp, a missing t and a missing header', () => {
    const header = signBody(secret, body, now);
    const tampered = Buffer.from(body.toString().replace('e-1', 'e-2'));
    expect(verifySignature(header, tampered, secret, now)).toEqual({
      valid: false,
      reason: 'mismatch',
    });
    expect(verifySignature(header, body, 'other', now)).toEqual({
      valid: false,
      reason: 'mismatch',
    });
    expect(verifySignature(signBody(secret, body, now - 301), body, secret, now)).toEqual({
      valid: false,
      reason: 'stale',
    });
    expect(verifySignature(header.replace(/^t=\d+,/, ''), body, secret, now)).toEqual({
      valid: false,
      reason: 'no_timestamp',
    });
    expect(verifySignature(undefined, body, secret, now)).toEqual({
      valid: false,
      reason: 'missing',
    });
    expect(verifySignature('garbage', body, secret, now)).toEqual({
      valid: false,
      reason: 'malformed',
    });
  });

  it('signs "<t>." + body with HMAC-SHA256 of the UTF-8 secret, as a partner would compute it', () => {
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${now}.${body.toString()}`)
      .digest('hex');
    expect(signBody(secret, body, now)).toBe(`t=${now},v1=${expected}`);
  });

  it('refuses a header with two timestamps as malformed, whichever of them was signed', () => {
    const older = signBody(secret, body, now - 60);
    const newer = signBody(secret, body, now);
    // Two Comanda-Signature headers reach the receiver joined by ", ".
    for (const joined of [`${older}, ${newer}`, `${newer}, ${older}`, `t=${now},${newer}`]) {
      expect(verifySignature(joined, body, secret, now)).toEqual({
        valid: false,
        reason: 'malformed',
      });
    }
  });

  it('accepts any of several v1 values (secret rotation)', () => {
    const good = signBody(secret, body, now).split(',')[1];
    expect(verifySignature(`t=${now},v1=${'0'.repeat(64)},${good}`, body, secret, now)).toEqual({
      valid: true,
    });
  });

  it('signs with every secret given, one v1 each, so a receiver holding either verifies it', () => {
    const header = signBody(['new-secret', secret], body, now);
    expect(header.split(',')).toHaveLength(3);
    expect(header.startsWith(`${signBody('new-secret', body, now)},v1=`)).toBe(true);
    for (const holder of ['new-secret', secret]) {
      expect(verifySignature(header, body, holder, now)).toEqual({ valid: true });
    }
    expect(verifySignature(header, body, 'a-third-secret', now)).toEqual({
      valid: false,
      reason: 'mismatch',
    });
  });
});
