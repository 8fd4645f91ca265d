import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor';
import type { ExtensionReference } from './extension-reference';
import { InvalidExtensionReferencesError } from './extension.errors';
import { ExtensionEntity } from './extension.entity';
import { ExtensionVersionEntity } from './extension-version.entity';
import { isExtensionVisible, preferOwnTenant } from './extension-visibility';
import type { ExtensionRecord } from './extension.output';

export interface ReferenceAtPath {
  /** Where the reference sits in the request body, e.g. `extensionReferences[1]`. */
  path: string;
  reference: ExtensionReference;
}

/**
 * Resolves extension references to the versions they pin. A reference holds when an
 * extension with that id, publisher and version exists, is not removed, and the caller
 * may see it (Public, or Private of the caller's tenant). Should two match (the caller's
 * tenant's and one published elsewhere), the caller's tenant's wins.
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
    // Candidates: the caller's tenant's extensions and published ones; another tenant's
    // private id is never read, so it cannot change the answer (ADR 0016).
    const rows = (await manager
      .createQueryBuilder(ExtensionVersionEntity, 'version')
      .innerJoinAndMapOne(
        'version.extension',
        ExtensionEntity,
        'extension',
        'extension.tenant_id = version.tenant_id AND extension.id = version.extension_id',
      )
      .where(
        '(version.extension_id, version.version) IN (SELECT * FROM unnest(:ids::text[], :versions::text[]))',
        {
          ids: references.map((reference) => reference.dataId),
          versions: references.map((reference) => reference.version),
        },
      )
      .andWhere('(extension.tenant_id = :tenantId OR extension.published)', {
        tenantId: actor.tenantId,
      })
      .getMany()) as Array<ExtensionVersionEntity & { extension: ExtensionEntity }>;
    return references.map((reference) => {
      const candidates = rows
        .filter(
          (row) =>
            row.extensionId === reference.dataId &&
            row.version === reference.version &&
            row.extension.publisher === reference.publisher &&
            (row.extension.deletedAt === null || includeDeleted) &&
            isExtensionVisible(
              { tenantId: row.extension.tenantId, availability: row.availability },
              actor,
              true,
            ),
        )
        .map((row) => ({ extension: row.extension, version: row }));
      return preferOwnTenant(candidates, actor);
    });
  }
}
