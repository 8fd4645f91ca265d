export const PARAMETER_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** One setting a plugin takes from its config, as its manifest declares it. */
export interface ManifestParameter {
  name: string;
  type: ParameterType;
  required: boolean;
  default?: unknown;
  description?: string;
}

export interface PluginManifest {
  version: string;
  description: string;
  parameters: ManifestParameter[];
}

/** JSON values as the frontend receives them: `integer` is a whole `number`, `object` excludes arrays and null. */
export function matchesParameterType(value: unknown, type: ParameterType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
  }
}

export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
