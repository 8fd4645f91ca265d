import { namesRealInstant } from '@comanda/http';
import { invalidParameter } from './request.errors';

export const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;
const INTEGER = /^-?\d+$/;
// RFC 3339 date-time: full date, "T", full time with optional fraction, "Z" or an offset.
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Every field names a real instant (`namesRealInstant`), the offset a real one too. */
function isCalendarValid(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const offsetValid = match[9] === undefined || (Number(match[9]) <= 23 && Number(match[10]) <= 59);
  return offsetValid && namesRealInstant(year, month, day, hour, minute, second);
}

/** A query string parameter given once, as text (repeated, it arrives as an array). */
export function parseTextParam(name: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw invalidParameter(name, 'must be given once');
}

/** Query booleans are the words `true` and `false`; anything else is a client mistake. */
export function parseBooleanParam(
  name: string,
  value: string | undefined,
  fallback = false,
): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidParameter(name, 'must be true or false');
}

export function parseInt32(name: string, value: string): number {
  const parsed = INTEGER.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < INT32_MIN || parsed > INT32_MAX) {
    throw invalidParameter(name, 'must be a 32-bit integer');
  }
  return parsed;
}

export function parseBoundedInt(
  name: string,
  value: string | undefined,
  options: { fallback: number; min: number; max: number },
): number {
  if (value === undefined) return options.fallback;
  const parsed = parseInt32(name, value);
  if (parsed < options.min || parsed > options.max) {
    throw invalidParameter(name, `must be between ${options.min} and ${options.max}`);
  }
  return parsed;
}

export function parseTimestampParam(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const match = RFC3339.exec(value);
  const time = match && isCalendarValid(match) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw invalidParameter(name, 'must be an RFC 3339 date-time');
  return new Date(time);
}
