import {
  PARTNER_EVENT_TYPES,
  type PartnerEventReceived,
  type PartnerEventType,
} from '@comanda/contracts';
import {
  DEFAULT_JSON_INPUT_LIMITS,
  parseGuardedJson,
  ProblemError,
  RequestValidationError,
  unstorableText,
  utf8Body,
  type ProblemFieldError,
} from '@comanda/http';

/**
 * A completion event as a payment partner posts it: `{eventId, type, paymentId, operationId,
 * occurredAt, reason?}`, what notifications hands on without the merchant.
 */
export type PartnerEvent = Omit<PartnerEventReceived, 'merchantId'>;

export const MAX_ID_LENGTH = 200;
export const MAX_REASON_LENGTH = 2000;

export type ParsedPartnerEvent =
  | { ok: true; event: PartnerEvent }
  | { ok: false; malformedJson: boolean; errors: ProblemFieldError[] };

/**
 * Read member by member, extra members ignored, and stored as its bytes: a partner's own
 * `constructor` member, or a number JSON.parse would round, loses nothing.
 */
const PARTNER_EVENT_LIMITS = {
  ...DEFAULT_JSON_INPUT_LIMITS,
  refuseReservedNames: false,
  refuseInexactNumbers: false,
};

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Reads the raw body of a partner event. Members beyond the contract's are ignored (a
 * partner may add its own); the contract's members must all be there with their types.
 */
export function parsePartnerEvent(raw: Buffer): ParsedPartnerEvent {
  let value: unknown;
  try {
    // The input guard of every JSON body (depth, width, length, prototype keys), applied
    // here because the body stays raw bytes until its signature is checked.
    value = parseGuardedJson(utf8Body(raw, 'json'), PARTNER_EVENT_LIMITS);
  } catch (error) {
    if (error instanceof RequestValidationError) {
      return { ok: false, malformedJson: false, errors: error.errors ?? [] };
    }
    // Valid JSON with a `__proto__` member: refused as such, not called malformed.
    if (error instanceof ProblemError && error.code === 'request.forbidden_member') {
      return {
        ok: false,
        malformedJson: false,
        errors: [{ path: '', message: error.detail ?? '' }],
      };
    }
    return { ok: false, malformedJson: true, errors: [] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      malformedJson: false,
      errors: [{ path: '', message: 'the event must be a JSON object' }],
    };
  }
  const unstorable = unstorableText(value);
  if (unstorable.length > 0) return { ok: false, malformedJson: false, errors: unstorable };
  const body = value as Record<string, unknown>;
  const errors: ProblemFieldError[] = [];
  const id = (name: 'eventId' | 'paymentId' | 'operationId'): string => {
    const member = body[name];
    if (typeof member !== 'string' || member.trim() === '') {
      errors.push({ path: name, message: `${name} is required: a non-empty string` });
      return '';
    }
    if (member.length > MAX_ID_LENGTH) {
      errors.push({ path: name, message: `${name} has at most ${MAX_ID_LENGTH} characters` });
    }
    return member;
  };
  const eventId = id('eventId');
  const paymentId = id('paymentId');
  const operationId = id('operationId');
  const type = body['type'];
  if (typeof type !== 'string' || !(PARTNER_EVENT_TYPES as readonly string[]).includes(type)) {
    errors.push({ path: 'type', message: `type must be one of ${PARTNER_EVENT_TYPES.join(', ')}` });
  }
  const occurredAt = body['occurredAt'];
  if (typeof occurredAt !== 'string' || !isDateTime(occurredAt)) {
    errors.push({
      path: 'occurredAt',
      message: 'occurredAt is required: an ISO 8601 date-time with a zone (2026-01-31T12:00:00Z)',
    });
  }
  const reason = body['reason'];
  if (reason !== undefined && reason !== null) {
    if (typeof reason !== 'string') {
      errors.push({ path: 'reason', message: 'reason, when given, is a string' });
    } else if (reason.length > MAX_REASON_LENGTH) {
      errors.push({
        path: 'reason',
        message: `reason has at most ${MAX_REASON_LENGTH} characters`,
      });
    }
  }
  if (errors.length > 0) return { ok: false, malformedJson: false, errors };
  const event: PartnerEvent = {
    eventId,
    type: type as PartnerEventType,
    paymentId,
    operationId,
    occurredAt: occurredAt as string,
  };
  if (typeof reason === 'string') event.reason = reason;
  return { ok: true, event };
}

/** An ISO 8601 date-time with a zone that names a real instant (no 31 February, no 25:00). */
function isDateTime(value: string): boolean {
  const match = ISO_DATE_TIME.exec(value);
  if (!match || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const [hours, minutes, seconds] = value.slice(11, 19).split(':').map(Number);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hours < 24 &&
    minutes < 60 &&
    seconds < 60
  );
}
