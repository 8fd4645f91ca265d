/**
 * Lookups keyed by what a caller sent. A plain object answers `__proto__`, `constructor`,
 * `toString`, ... from Object.prototype, so `TABLE[userInput]` is truthy for keys nobody put
 * there. Use a `Map`, or these helpers, whenever the key comes from a request (the lint rule
 * `no-restricted-syntax` in eslint.config.mjs rejects object-literal `Record` tables).
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Whether `key` is one of the object's own properties (never an inherited one). */
export function hasOwn(record: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/** Keys that resolve to Object.prototype members on a plain object: what attackers try first. */
export const PROTOTYPE_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

/**
 * A fixed lookup table without a prototype: `table['__proto__']` or `table['constructor']`
 * is undefined, as for any key nobody put there. Use it for module-level tables instead of a
 * plain object literal (which the lint rule refuses).
 */
export function lookupTable<T extends object>(entries: T): Readonly<T> {
  return Object.freeze(Object.assign(Object.create(null) as T, entries));
}
