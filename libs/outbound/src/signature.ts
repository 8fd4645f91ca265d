import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signing contract of ARCHITECTURE.md, used in every direction (operations to payment
 * partners, partner events to the notification receiver, webhook deliveries):
 * `Comanda-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>`.
 * The secret is used as its UTF-8 bytes; the body as the exact bytes sent, never re-serialised.
 */
export const SIGNATURE_HEADER = 'comanda-signature';

/** How far `t` may be from the receiver's clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureRejection = 'missing' | 'malformed' | 'no_timestamp' | 'stale' | 'mismatch';

export type SignatureCheck = { valid: true } | { valid: false; reason: SignatureRejection };

function digest(secret: string, timestamp: string, body: Buffer | string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`)
    .update(body)
    .digest();
}

/**
 * The header value for `body`, signed at `timestampSeconds` (now by default): one `v1` per
 * secret, in the order given (several while a secret is rolled over: a receiver that holds
 * either one finds its match).
 */
export function signBody(
  secret: string | readonly string[],
  body: Buffer | string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): string {
  const t = String(Math.trunc(timestampSeconds));
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return `t=${t}${secrets.map((one) => `,v1=${digest(one, t, body).toString('hex')}`).join('')}`;
}

/**
 * Checks a header against the raw body: a `t` within the tolerance and one `v1` (several
 * are accepted, for secret rotation) equal to the expected HMAC, compared in constant time.
 * One `t` only: a header with two (two headers sent, which Node joins with a comma, or one
 * written so) does not say which instant was signed, and is malformed.
 */
export function verifySignature(
  header: string | undefined,
  body: Buffer | string,
  secret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (header === undefined || header.trim() === '') return { valid: false, reason: 'missing' };
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return { valid: false, reason: 'malformed' };
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) return { valid: false, reason: 'malformed' };
      timestamp = value;
    } else if (key === 'v1') candidates.push(value);
  }
  if (timestamp === undefined) return { valid: false, reason: 'no_timestamp' };
  if (!/^\d{1,12}$/.test(timestamp)) return { valid: false, reason: 'malformed' };
  if (candidates.length === 0) return { valid: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return { valid: false, reason: 'stale' };
  }
  const expected = digest(secret, timestamp, body);
  const matches = candidates.some((candidate) => {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) return false;
    return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
  });
  return matches ? { valid: true } : { valid: false, reason: 'mismatch' };
}
