import { ApiProperty } from '@nestjs/swagger';
import { AVAILABILITIES } from './extension-version.entity';
import type { ExtensionReference } from './extension-reference';
import type { ExtensionEntity } from './extension.entity';
import type { Availability, ExtensionVersionEntity } from './extension-version.entity';

/** The spec's minimal extension output (lists without `complete=true`). */
export interface ExtensionSummaryOutput {
  availability: Availability;
  baseType: string;
  publisher: string;
  id: string;
  version: string;
}

export interface ExtensionOutput extends ExtensionSummaryOutput {
  entity: string;
  extensionReferences: Record<string, ExtensionReference>;
  createdAt: string;
  lastUpdateDate: string;
  deleted: boolean;
}

export interface ExtensionRecord {
  extension: ExtensionEntity;
  version: ExtensionVersionEntity;
}

export function toExtensionSummary({
  extension,
  version,
}: ExtensionRecord): ExtensionSummaryOutput {
  return {
    availability: version.availability,
    baseType: version.baseType,
    publisher: extension.publisher,
    id: extension.id,
    version: version.version,
  };
}

export function toExtensionOutput(record: ExtensionRecord): ExtensionOutput {
  const { extension, version } = record;
  return {
    ...toExtensionSummary(record),
    entity: extension.entity,
    extensionReferences: version.extensionReferences,
    createdAt: extension.createdAt.toISOString(),
    lastUpdateDate: (extension.deletedAt ?? extension.updatedAt).toISOString(),
    deleted: extension.deletedAt !== null,
  };
}

/** How the API description shows an extension reference (a saved version of an extension). */
export class ExtensionReferenceView implements ExtensionReference {
  @ApiProperty({ description: 'The client id that published the extension' }) publisher!: string;
  @ApiProperty({ description: 'The extension id' }) dataId!: string;
  @ApiProperty() version!: string;
}

/** How the API description shows {@link ExtensionSummaryOutput}. */
export class ExtensionSummaryView implements ExtensionSummaryOutput {
  @ApiProperty({ enum: AVAILABILITIES }) availability!: Availability;
  @ApiProperty() baseType!: string;
  @ApiProperty({ description: 'The client id that published it' }) publisher!: string;
  @ApiProperty() id!: string;
  @ApiProperty() version!: string;
}

/** How the API description shows {@link ExtensionOutput}. */
export class ExtensionView extends ExtensionSummaryView implements ExtensionOutput {
  @ApiProperty() entity!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/ExtensionReferenceView' },
  })
  extensionReferences!: Record<string, ExtensionReference>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) lastUpdateDate!: string;
  @ApiProperty() deleted!: boolean;
}
