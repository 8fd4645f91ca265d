import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor';
import type { ExtensionReference } from './extension-reference';
import { InvalidExtensionReferencesError } from './extension.errors';
import { ExtensionEntity } from './extension.entity';
import { ExtensionVersionEntity } from './extension-version.entity';
import { isExtensionVisible } from './extension-visibility';
import type { ExtensionRecord } from './extension.output';

export interface ReferenceAtPath {
  /** Where the reference sits in the request body, e.g. `extensionReferences[1]`. */
  path: string;
  reference: ExtensionReference;
}

/**
 * Resolves extension references to the versions they pin. A reference holds when an
 * extension with that id, publisher and version exists, is not removed, and the caller
 * may see it (Public, or Private of the caller's tenant).
 */
@Injectable()
export class ExtensionReferenceValidator {
  /** Throws one 422 naming every failing reference. */
  async assertResolvable(
    manager: EntityManager,
    actor: Actor,
    references: ReferenceAtPath[],
  ): Promise<void> {
    if (references.length === 0) return;
    const resolved = await this.resolve(
      manager,
      actor,
      references.map((item) => item.reference),
      false,
    );
    const failures = references.filter((_item, index) => resolved[index] === undefined);
    if (failures.length > 0) {
      throw new InvalidExtensionReferencesError(
        failures.map(({ path, reference }) => ({
          path,
          message: `no extension "${reference.dataId}" version "${reference.version}" of publisher "${reference.publisher}" is available to you`,
        })),
      );
    }
  }

  /** The pinned version of each reference, `undefined` where it does not resolve. */
  async resolve(
    manager: EntityManager,
    actor: Actor,
    references: ExtensionReference[],
    includeDeleted: boolean,
  ): Promise<Array<ExtensionRecord | undefined>> {
    if (references.length === 0) return [];
    const versions = await manager
      .createQueryBuilder(ExtensionVersionEntity, 'version')
      .where(
        '(version.extension_id, version.version) IN (SELECT * FROM unnest(:ids::text[], :versions::text[]))',
        {
          ids: references.map((reference) => reference.dataId),
          versions: references.map((reference) => reference.version),
        },
      )
      .getMany();
    const extensions = await manager
      .createQueryBuilder(ExtensionEntity, 'extension')
      .where('extension.id = ANY(:ids)', {
        ids: [...new Set(versions.map((version) => version.extensionId))],
      })
      .getMany();
    const byId = new Map(extensions.map((extension) => [extension.id, extension]));
    return references.map((reference) => {
      const version = versions.find(
        (candidate) =>
          candidate.extensionId === reference.dataId && candidate.version === reference.version,
      );
      const extension = byId.get(reference.dataId);
      if (!version || !extension) return undefined;
      if (extension.publisher !== reference.publisher) return undefined;
      if (extension.deletedAt !== null && !includeDeleted) return undefined;
      const visible = isExtensionVisible(
        { tenantId: extension.tenantId, availability: version.availability },
        actor,
        true,
      );
      return visible ? { extension, version } : undefined;
    });
  }
}
