/** The spec's `entityType` enumeration, exact spelling. */
export const CONNECTION_ENTITY_TYPES = [
  'Type',
  'Extension',
  'Config',
  'Schema',
  'Value',
  'Reference',
] as const;
export type ConnectionEntityType = (typeof CONNECTION_ENTITY_TYPES)[number];

export function isConnectionEntityType(value: string): value is ConnectionEntityType {
  return (CONNECTION_ENTITY_TYPES as readonly string[]).includes(value);
}
