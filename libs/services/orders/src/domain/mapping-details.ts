import { LIMITS } from './limits';

/** Custom key-value pairs of a store, menu item, charge item or discount, kept byte for byte. */
export type MappingDetails = Record<string, string>;

/** Why `value` is not a mappingDetails object, or undefined when it is one. */
export function mappingDetailsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be an object of string keys to string values';
  }
  const entries = Object.entries(value);
  if (entries.length > LIMITS.mappingEntries) {
    return `must have at most ${LIMITS.mappingEntries} entries`;
  }
  for (const [key, entry] of entries) {
    if (key.length === 0 || key.length > LIMITS.mappingKeyLength) {
      return `keys must be 1 to ${LIMITS.mappingKeyLength} characters`;
    }
    if (typeof entry !== 'string') return `the value of "${key}" must be a string`;
    if (entry.length > LIMITS.mappingValueLength) {
      return `the value of "${key}" must be at most ${LIMITS.mappingValueLength} characters`;
    }
  }
  return undefined;
}
