import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type ExtensionChanged } from '@comanda/contracts';
import { takeTurn, type Tx } from '@comanda/persistence';
import { OutboxWriter } from '@comanda/messaging';
import { Brackets, DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor';
import { CLOCK, type Clock } from '../common/clock';
import { allocateCreatedAt } from '../common/created-at-allocator';
import { ifMatchSatisfied } from '../common/etag';
import type { PageRequest } from '../common/page';
import { violatedUniqueConstraint } from '../common/pg-errors';
import { invalidParameter } from '../common/request.errors';
import { VersionConflictError } from '../configs/config.errors';
import type { ExtensionInputDto } from './extension-input.dto';
import { ExtensionReferenceValidator } from './extension-reference.validator';
import {
  ExtensionAlreadyExistsError,
  ExtensionIdTakenError,
  ExtensionNotFoundError,
  ExtensionPublisherMismatchError,
} from './extension.errors';
import { ExtensionEntity } from './extension.entity';
import {
  toExtensionOutput,
  toExtensionSummary,
  type ExtensionOutput,
  type ExtensionRecord,
  type ExtensionSummaryOutput,
} from './extension.output';
import { ExtensionVersionEntity } from './extension-version.entity';
import { isExtensionVisible, preferOwnTenant } from './extension-visibility';

export const DEFAULT_BASE_TYPE = 'Extension';

export interface ExtensionResult {
  extension: ExtensionOutput;
  /** Current revision: the ETag. */
  revision: number;
}

export interface ExtensionReadOptions {
  includeDeleted: boolean;
  includePrivate: boolean;
}

export interface ExtensionListOptions extends ExtensionReadOptions {
  complete: boolean;
  page: PageRequest;
}

type ExtensionEvent = (typeof EventTypes)[
  'ExtensionCreated' | 'ExtensionUpdated' | 'ExtensionDeleted'];

/**
 * The extension registry: publish, version, read, list and remove. Ids are unique per tenant,
 * and among published extensions platform-wide (ADR 0016).
 */
@Injectable()
export class ExtensionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly references: ExtensionReferenceValidator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(
    manager: Tx,
    actor: Actor,
    entity: string,
    input: ExtensionInputDto,
  ): Promise<ExtensionResult> {
    try {
      // First publications of one id in a tenant take turns, so that the later one reads what
      // the earlier committed: the same publisher gets extension.already_exists, not the
      // unique index's id_taken.
      await takeTurn(manager, `comanda:extension:${actor.tenantId}`, input.id);
      // Only the caller's tenant's ids are read: another tenant's private id changes no
      // answer (ADR 0016). A published id of another tenant is refused by the unique index.
      const existing = await manager.findOne(ExtensionEntity, {
        where: { tenantId: actor.tenantId, id: input.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (existing) {
        throw existing.publisher === actor.clientId
          ? new ExtensionAlreadyExistsError(input.id, existing.entity)
          : new ExtensionIdTakenError(input.id);
      }
      await this.assertReferences(manager, actor, input);
      const now = this.clock.now();
      const createdAt = await allocateCreatedAt(
        manager,
        {
          lockKey: ['config.extensions', ''],
          maxSql: this.latestCreatedAtSql(manager),
          parameters: [],
        },
        now,
      );
      const extension = manager.create(ExtensionEntity, {
        id: input.id,
        entity,
        publisher: actor.clientId,
        tenantId: actor.tenantId,
        published: input.availability === 'Public',
        latestVersion: input.version,
        revision: 1,
        createdAt,
        updatedAt: createdAt,
        deletedAt: null,
      });
      await manager.insert(ExtensionEntity, extension);
      const version = this.newVersion(manager, extension.tenantId, input, createdAt);
      await manager.insert(ExtensionVersionEntity, version);
      await this.publish(manager, EventTypes.ExtensionCreated, { extension, version });
      return {
        extension: toExtensionOutput({ extension, version }),
        revision: extension.revision,
      };
    } catch (error) {
      // A public id another tenant published (or is publishing) meanwhile.
      throw this.idTakenOr(error, input.id);
    }
  }

  /** Saves `input.version` (new, or replacing the same version string) as the latest. */
  async update(
    manager: Tx,
    actor: Actor,
    entity: string,
    id: string,
    input: ExtensionInputDto,
    options: { includeDeleted: boolean; ifMatch?: string },
  ): Promise<ExtensionResult> {
    if (input.id !== id) throw invalidParameter('id', `must equal the id in the path ("${id}")`);
    const extension = await this.findOwnForWrite(
      manager,
      actor,
      entity,
      id,
      options.includeDeleted,
    );
    if (!ifMatchSatisfied(options.ifMatch, extension.revision))
      throw new VersionConflictError(`Extension "${id}"`);
    await this.assertReferences(manager, actor, input);
    const now = this.clock.now();
    const previous = await manager.findOne(ExtensionVersionEntity, {
      where: { tenantId: extension.tenantId, extensionId: id, version: input.version },
    });
    const version = this.newVersion(manager, extension.tenantId, input, previous?.createdAt ?? now);
    version.updatedAt = now;
    // Updating a removed extension (include_deleted=true) restores it: see ADR 0007.
    Object.assign(extension, {
      published: extension.published || input.availability === 'Public',
      latestVersion: input.version,
      revision: extension.revision + 1,
      updatedAt: now,
      deletedAt: null,
    });
    try {
      // First, so that publishing an id another tenant published fails before any write.
      await manager.save(ExtensionEntity, extension);
    } catch (error) {
      throw this.idTakenOr(error, id);
    }
    await manager.save(ExtensionVersionEntity, version);
    await this.publish(manager, EventTypes.ExtensionUpdated, { extension, version });
    return { extension: toExtensionOutput({ extension, version }), revision: extension.revision };
  }

  async remove(manager: Tx, actor: Actor, entity: string, id: string): Promise<ExtensionResult> {
    const extension = await this.findOwnForWrite(manager, actor, entity, id, false);
    const now = this.clock.now();
    extension.deletedAt = now;
    extension.updatedAt = now;
    extension.revision += 1;
    await manager.save(ExtensionEntity, extension);
    const version = await manager.findOneOrFail(ExtensionVersionEntity, {
      where: { tenantId: extension.tenantId, extensionId: id, version: extension.latestVersion },
    });
    await this.publish(manager, EventTypes.ExtensionDeleted, { extension, version });
    return { extension: toExtensionOutput({ extension, version }), revision: extension.revision };
  }

  async get(
    actor: Actor,
    entity: string,
    id: string,
    options: ExtensionReadOptions,
  ): Promise<ExtensionResult> {
    const record = await this.findVisible(this.dataSource.manager, actor, entity, id, options);
    if (!record) throw new ExtensionNotFoundError(id);
    return { extension: toExtensionOutput(record), revision: record.extension.revision };
  }

  async list(
    actor: Actor,
    entity: string,
    options: ExtensionListOptions,
  ): Promise<Array<ExtensionOutput | ExtensionSummaryOutput>> {
    return (await this.listPage(actor, entity, options)).items;
  }

  /** A page of the list, with the creation time of its last row (the next page's cursor). */
  async listPage(
    actor: Actor,
    entity: string,
    options: ExtensionListOptions,
  ): Promise<{
    items: Array<ExtensionOutput | ExtensionSummaryOutput>;
    lastCreatedAt: Date | undefined;
  }> {
    const query = this.dataSource.manager
      .createQueryBuilder(ExtensionEntity, 'extension')
      .innerJoinAndMapOne(
        'extension.latest',
        ExtensionVersionEntity,
        'version',
        'version.tenant_id = extension.tenant_id AND version.extension_id = extension.id AND version.version = extension.latest_version',
      )
      .where('extension.entity = :entity', { entity })
      .andWhere(
        new Brackets((visible) => {
          visible.where(`version.availability = 'Public'`);
          if (options.includePrivate) {
            visible.orWhere(
              `(version.availability = 'Private' AND extension.tenant_id = :tenantId)`,
              {
                tenantId: actor.tenantId,
              },
            );
          }
        }),
      )
      .orderBy('extension.createdAt', 'ASC')
      .addOrderBy('extension.id', 'ASC')
      // One version row per extension: a plain LIMIT is exact.
      .limit(options.page.limit);
    if (!options.includeDeleted) query.andWhere('extension.deleted_at IS NULL');
    if (options.page.createdAfter) {
      query.andWhere('extension.created_at > :after', { after: options.page.createdAfter });
    }
    const rows = (await query.getMany()) as Array<
      ExtensionEntity & { latest: ExtensionVersionEntity }
    >;
    const items = rows.map((row) => {
      const record = { extension: row, version: row.latest };
      return options.complete ? toExtensionOutput(record) : toExtensionSummary(record);
    });
    return { items, lastCreatedAt: rows.at(-1)?.createdAt };
  }

  private readable(record: ExtensionRecord, actor: Actor, options: ExtensionReadOptions): boolean {
    if (record.extension.deletedAt !== null && !options.includeDeleted) return false;
    return isExtensionVisible(
      { tenantId: record.extension.tenantId, availability: record.version.availability },
      actor,
      options.includePrivate,
    );
  }

  /**
   * The extension `id` names under `entity` for this caller: of those it may read (its own
   * tenant's, and one another tenant published), its own tenant's (ADR 0016). Another
   * tenant's private extension is never even read, so it cannot change the answer.
   */
  private async findVisible(
    manager: EntityManager,
    actor: Actor,
    entity: string,
    id: string,
    options: ExtensionReadOptions,
    lock = false,
  ): Promise<ExtensionRecord | undefined> {
    const extensions = await manager.find(ExtensionEntity, {
      where: [
        { tenantId: actor.tenantId, entity, id },
        { published: true, entity, id },
      ],
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    const records: ExtensionRecord[] = [];
    for (const extension of extensions) {
      const version = await manager.findOneOrFail(ExtensionVersionEntity, {
        where: { tenantId: extension.tenantId, extensionId: id, version: extension.latestVersion },
      });
      records.push({ extension, version });
    }
    return preferOwnTenant(
      records.filter((record) => this.readable(record, actor, options)),
      actor,
    );
  }

  /**
   * The extension a write names, locked: absent, removed (unless asked for) or another
   * tenant's private one answer 404; another publisher's visible one answers 409.
   */
  private async findOwnForWrite(
    manager: EntityManager,
    actor: Actor,
    entity: string,
    id: string,
    includeDeleted: boolean,
  ): Promise<ExtensionEntity> {
    const record = await this.findVisible(
      manager,
      actor,
      entity,
      id,
      { includeDeleted, includePrivate: true },
      true,
    );
    if (!record) throw new ExtensionNotFoundError(id);
    if (record.extension.publisher !== actor.clientId)
      throw new ExtensionPublisherMismatchError(id);
    return record.extension;
  }

  /** A unique violation on an extension id as 409 `extension.id_taken`; anything else as is. */
  private idTakenOr(error: unknown, id: string): unknown {
    const constraint = violatedUniqueConstraint(error);
    return constraint === 'extensions_pkey' || constraint === 'extensions_published_id_key'
      ? new ExtensionIdTakenError(id)
      : error;
  }

  private async assertReferences(
    manager: EntityManager,
    actor: Actor,
    input: ExtensionInputDto,
  ): Promise<void> {
    const references = Object.entries(input.extensionReferences ?? {}).map(([name, reference]) => ({
      path: `extensionReferences.${name}`,
      reference,
    }));
    await this.references.assertResolvable(manager, actor, references);
  }

  private newVersion(
    manager: EntityManager,
    tenantId: string,
    input: ExtensionInputDto,
    createdAt: Date,
  ): ExtensionVersionEntity {
    return manager.create(ExtensionVersionEntity, {
      tenantId,
      extensionId: input.id,
      version: input.version,
      availability: input.availability,
      baseType: input.baseType ?? DEFAULT_BASE_TYPE,
      extensionReferences: input.extensionReferences ?? {},
      createdAt,
      updatedAt: createdAt,
    });
  }

  private latestCreatedAtSql(manager: EntityManager): string {
    return `SELECT max(created_at) AS latest FROM ${manager.connection.getMetadata(ExtensionEntity).tablePath}`;
  }

  private async publish(
    manager: EntityManager,
    type: ExtensionEvent,
    { extension, version }: ExtensionRecord,
  ): Promise<void> {
    const data: ExtensionChanged = {
      id: extension.id,
      version: version.version,
      publisher: extension.publisher,
      availability: version.availability,
    };
    await this.outbox.add(manager, {
      type,
      // The extension's tenant: with the id, it names the extension (ADR 0016).
      tenantId: extension.tenantId,
      subject: `extension/${extension.id}`,
      data,
    });
  }
}
