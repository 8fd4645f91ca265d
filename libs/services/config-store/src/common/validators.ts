import { ValidateBy, type ValidationOptions } from 'class-validator';
import { LIMITS } from './limits';

/** A JSON object (not an array, not null) whose serialized form stays within `maxBytes`. */
export function IsJsonObjectWithin(
  maxBytes: number,
  options?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isJsonObjectWithin',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Buffer.byteLength(JSON.stringify(value), 'utf8') <= maxBytes,
        defaultMessage: () => `$property must be a JSON object of at most ${maxBytes} bytes`,
      },
    },
    options,
  );
}

function isReference(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  return (
    keys.length === 3 &&
    (['publisher', 'dataId', 'version'] as const).every(
      (key) =>
        typeof record[key] === 'string' &&
        (record[key] as string).length > 0 &&
        (record[key] as string).length <= LIMITS.idLength,
    )
  );
}

/** An object mapping names to `{publisher, dataId, version}` references. */
export function IsReferenceMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isReferenceMap',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= LIMITS.extensionReferences &&
          Object.values(value).every(isReference),
        defaultMessage: () =>
          `$property must map at most ${LIMITS.extensionReferences} names to {publisher, dataId, version} strings`,
      },
    },
    options,
  );
}

/**
 * An id a record is created with and later addressed by in a path (`/connections/{id}`,
 * `/extensions/{id}`): 1 to `LIMITS.idLength` UTF-16 units, the measure the router applies to
 * a path parameter (class-validator's `Length` counts code points, so 101 emoji passed it and
 * then named nothing), and not `.` or `..`, which no path can carry as a segment.
 */
export function IsAddressableId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAddressableId',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' &&
          value.length >= 1 &&
          value.length <= LIMITS.idLength &&
          value !== '.' &&
          value !== '..',
        defaultMessage: () =>
          `$property must be a string of 1 to ${LIMITS.idLength} UTF-16 code units, not "." or ".."`,
      },
    },
    options,
  );
}
