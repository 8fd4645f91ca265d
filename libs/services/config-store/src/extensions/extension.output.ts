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
