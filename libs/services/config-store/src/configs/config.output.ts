import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ExtensionReferenceView } from '../extensions/extension.output';
import type { ExtensionReference } from '../extensions/extension-reference';
import type { ConfigVersionEntity } from './config-version.entity';

export const JSON_TYPES = ['string', 'number', 'boolean', 'object', 'array', 'null'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

export interface ConfigOutput {
  id: string;
  entity: string;
  version: number;
  publisher: string;
  extensionReferences: ExtensionReference[];
  values: Record<string, unknown>;
  /** When the config was created (its version 1). */
  createdAt: string;
  /** When this version was saved, or removed. */
  lastUpdateDate: string;
  deleted: boolean;
  /** With `include_datatypes=true`: the JSON type of each top-level value. */
  dataTypes?: Record<string, JsonType>;
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

export function toConfigOutput(
  row: ConfigVersionEntity,
  options: { includeDatatypes?: boolean } = {},
): ConfigOutput {
  const output: ConfigOutput = {
    id: row.configId,
    entity: row.entity,
    version: row.version,
    publisher: row.publisher,
    extensionReferences: row.extensionReferences,
    values: row.values,
    createdAt: row.configCreatedAt.toISOString(),
    lastUpdateDate: (row.deletedAt ?? row.savedAt).toISOString(),
    deleted: row.deletedAt !== null,
  };
  if (options.includeDatatypes) {
    output.dataTypes = Object.fromEntries(
      Object.entries(row.values).map(([key, value]) => [key, jsonTypeOf(value)]),
    );
  }
  return output;
}

/** How the API description shows {@link ConfigOutput}. */
export class ConfigView implements ConfigOutput {
  @ApiProperty() id!: string;
  @ApiProperty() entity!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ description: 'The client id that saved this version' }) publisher!: string;
  @ApiProperty({ type: [ExtensionReferenceView] }) extensionReferences!: ExtensionReference[];
  @ApiProperty({ type: 'object', additionalProperties: true }) values!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: 'When version 1 was created' })
  createdAt!: string;
  @ApiProperty({ format: 'date-time', description: 'When this version was saved, or removed' })
  lastUpdateDate!: string;
  @ApiProperty() deleted!: boolean;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...JSON_TYPES] },
    description: 'With `include_datatypes=true`: the JSON type of each top-level value',
  })
  dataTypes?: Record<string, JsonType>;
}
