import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  isISO8601,
  IsRFC3339,
  MaxLength,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { LIMITS } from '../domain/limits';
import { mappingDetailsProblem } from '../domain/mapping-details';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DATE_TIME_MESSAGE =
  '$property must be an ISO 8601 date-time with a time zone, such as 2026-11-23T18:20:00Z';

const STRICT_ISO = { strict: true, strictSeparator: true };

/** The seconds of a date-time, with what comes before and after them. */
const SECONDS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:)(\d{2})(.*)$/;

/**
 * A date-time of a real day and time (ISO 8601, strict). A leap second (`:60`, RFC 3339
 * §5.7) is one only at 23:59:60 UTC, which is another local time under an offset
 * (`1990-12-31T15:59:60-08:00`); the strict ISO check knows no second 60, so the second
 * before it is checked in its place.
 */
function isRealDateTime(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const parts = SECONDS.exec(value);
  if (!parts || parts[2] !== '60') return isISO8601(value, STRICT_ISO);
  const before = `${parts[1]}59${parts[3]}`;
  if (!isISO8601(before, STRICT_ISO)) return false;
  const utc = new Date(before);
  return utc.getUTCHours() === 23 && utc.getUTCMinutes() === 59;
}

// A calendar date and a time of day with a zone, ISO 8601's extended (dashes and colons) or
// basic form; the minutes, the seconds and a fraction may be left out, the zone's minutes too.
const ISO_EXTENDED =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2})(?::(\d{2})(?::(\d{2})([.,]\d+)?)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;
const ISO_BASIC =
  /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(?:(\d{2})(?:(\d{2})([.,]\d+)?)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * An ISO 8601 date-time with a zone in RFC 3339's form: `20261123T1920+0100` and
 * `2026-11-23T19:20+01` are `2026-11-23T19:20:00+01:00`. Anything else is given back as it
 * came, for the checks to refuse.
 */
export function rfc3339Of(value: string): string {
  const parts = ISO_EXTENDED.exec(value) ?? ISO_BASIC.exec(value);
  if (!parts) return value;
  const [, year, month, day, hour, minute = '00', second = '00', fraction = '', zone] = parts;
  let offset = 'Z';
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.replace(':', '');
    offset = `${digits.slice(0, 3)}:${digits.slice(3) || '00'}`;
  }
  const decimals = fraction && `.${fraction.slice(1)}`;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${decimals}${offset}`;
}

/**
 * The spec's "ISO 8601 datetime" with a time zone, kept in the one form every POS and mail
 * client reads alike: RFC 3339 (`2026-11-23T18:20:00Z`, `…T19:20:00+01:00`). The other
 * complete ISO 8601 forms with a zone are taken and kept in that form (`rfc3339Of`: the
 * basic format, minutes or seconds left out, `+0100` or `+01` offsets, a lower-case `t` or
 * `z`), so every consumer reads the value it is given. The value must name a real day and
 * time, a leap second included (`2016-12-31T23:59:60Z`). Dates alone, week or ordinal dates
 * and local times without a zone (which name no instant) are refused.
 */
export function IsDateTime(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? rfc3339Of(value) : value,
    ),
    IsRFC3339({ message: DATE_TIME_MESSAGE }),
    ValidateBy({
      name: 'isRealDateTime',
      validator: { validate: isRealDateTime, defaultMessage: () => DATE_TIME_MESSAGE },
    }),
    MaxLength(64),
  );
}

/**
 * A character people see: a letter, digit, punctuation or symbol that is not one of the
 * characters Unicode says to draw as nothing (zero-width spaces and joiners, the Hangul
 * fillers, ...), nor the blank Braille pattern (U+2800, a symbol with no dot, which draws
 * as a space). Marks alone, spaces and format characters are not.
 */
const VISIBLE = /(?![\p{Default_Ignorable_Code_Point}\u2800])[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * Controls (C0, DEL and C1 with NEL), Unicode's line and paragraph separators, and the bidi
 * embeddings, overrides and isolates that make a name read in another order than it is
 * written. (The left-to-right and right-to-left marks stay: names in those scripts use them.)
 */
const FORBIDDEN = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;

/**
 * A name people read (an order's check number, shown to the guest and in the confirmation
 * e-mail's subject): some visible text, no line breaks, control characters or bidi controls.
 */
export function IsDisplayName(): PropertyDecorator {
  // A value that is no string at all is IsString's to report, once.
  return applyDecorators(
    ValidateBy({
      name: 'hasVisibleText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || VISIBLE.test(value),
        defaultMessage: () => '$property must contain visible text',
      },
    }),
    ValidateBy({
      name: 'isDisplayName',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !FORBIDDEN.test(value),
        defaultMessage: () =>
          '$property must not contain line breaks, control characters or bidi controls',
      },
    }),
  );
}

export function IsMappingDetails(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMappingDetails',
      validator: {
        validate: (value: unknown) => mappingDetailsProblem(value) === undefined,
        defaultMessage: (args) => `$property ${mappingDetailsProblem(args?.value) ?? ''}`,
      },
    },
    options,
  );
}

/** An object of string keys to string values (orderRefsDict). */
export function IsStringMap(
  maxEntries: number,
  maxLength: number,
  options?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (value: unknown) =>
          isPlainObject(value) &&
          Object.keys(value).length <= maxEntries &&
          Object.entries(value).every(
            ([key, entry]) =>
              key.length > 0 &&
              key.length <= maxLength &&
              typeof entry === 'string' &&
              entry.length > 0 &&
              entry.length <= maxLength,
          ),
        defaultMessage: () =>
          `$property must map at most ${maxEntries} keys to non-empty strings of at most ${maxLength} characters`,
      },
    },
    options,
  );
}

/** A JSON object (not an array, not null) whose serialized form stays within `maxBytes`. */
export function IsObjectWithin(maxBytes: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isObjectWithin',
      validator: {
        validate: (value: unknown) =>
          isPlainObject(value) && Buffer.byteLength(JSON.stringify(value), 'utf8') <= maxBytes,
        defaultMessage: () => `$property must be a JSON object of at most ${maxBytes} bytes`,
      },
    },
    options,
  );
}

const ADDRESS_FIELDS = ['street', 'city', 'postalCode', 'country'] as const;

/** A string, or `{street, city, postalCode, country}` of strings. */
export function IsAddress(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAddress',
      validator: {
        validate: (value: unknown) => {
          if (typeof value === 'string') {
            return value.trim().length > 0 && value.length <= LIMITS.addressLength;
          }
          if (!isPlainObject(value)) return false;
          const keys = Object.keys(value);
          return (
            keys.length === ADDRESS_FIELDS.length &&
            ADDRESS_FIELDS.every(
              (field) =>
                typeof value[field] === 'string' &&
                (value[field] as string).length > 0 &&
                (value[field] as string).length <= LIMITS.addressLength,
            )
          );
        },
        defaultMessage: () =>
          '$property must be a non-empty string or {street, city, postalCode, country} of strings',
      },
    },
    options,
  );
}
