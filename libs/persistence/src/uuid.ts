const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a `uuid` column can hold the value (any version). A path id that is no UUID names
 * nothing: a 404 without asking the database, which would refuse the value (a 500).
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
