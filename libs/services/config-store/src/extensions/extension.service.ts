import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type ExtensionChanged } from '@comanda/contracts';
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
import { isExtensionVisible } from './extension-visibility';

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

/** The platform-wide extension registry: publish, version, read, list and remove. */
@Injectable()
export class ExtensionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly references: ExtensionReferenceValidator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(actor: Actor, entity: string, input: ExtensionInputDto): Promise<ExtensionResult> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const existing = await manager.findOne(ExtensionEntity, {
          where: { id: input.id },
          lock: { mode: 'pessimistic_write' },
        });
        if (existing) {
          throw existing.publisher === actor.clientId
            ? new ExtensionAlreadyExistsError(input.id)
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
          latestVersion: input.version,
          revision: 1,
          createdAt,
          updatedAt: createdAt,
          deletedAt: null,
        });
        await manager.insert(ExtensionEntity, extension);
        const version = this.newVersion(manager, input, createdAt);
        await manager.insert(ExtensionVersionEntity, version);
        await this.publish(manager, actor, EventTypes.ExtensionCreated, { extension, version });
        return {
          extension: toExtensionOutput({ extension, version }),
          revision: extension.revision,
        };
      });
    } catch (error) {
      // Two first publications of one id racing: the loser sees the winner's primary key.
      if (violatedUniqueConstraint(error) === 'extensions_pkey')
        throw new ExtensionIdTakenError(input.id);
      throw error;
    }
  }

  /** Saves `input.version` (new, or replacing the same version string) as the latest. */
  async update(
    actor: Actor,
    entity: string,
    id: string,
    input: ExtensionInputDto,
    options: { includeDeleted: boolean; ifMatch?: string },
  ): Promise<ExtensionResult> {
    if (input.id !== id) throw invalidParameter('id', `must equal the id in the path ("${id}")`);
    return this.dataSource.transaction(async (manager) => {
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
        where: { extensionId: id, version: input.version },
      });
      const version = this.newVersion(manager, input, previous?.createdAt ?? now);
      version.updatedAt = now;
      await manager.save(ExtensionVersionEntity, version);
      // Updating a removed extension (include_deleted=true) restores it: see ADR 0007.
      Object.assign(extension, {
        latestVersion: input.version,
        revision: extension.revision + 1,
        updatedAt: now,
        deletedAt: null,
      });
      await manager.save(ExtensionEntity, extension);
      await this.publish(manager, actor, EventTypes.ExtensionUpdated, { extension, version });
      return { extension: toExtensionOutput({ extension, version }), revision: extension.revision };
    });
  }

  async remove(actor: Actor, entity: string, id: string): Promise<ExtensionResult> {
    return this.dataSource.transaction(async (manager) => {
      const extension = await this.findOwnForWrite(manager, actor, entity, id, false);
      const now = this.clock.now();
      extension.deletedAt = now;
      extension.updatedAt = now;
      extension.revision += 1;
      await manager.save(ExtensionEntity, extension);
      const version = await manager.findOneOrFail(ExtensionVersionEntity, {
        where: { extensionId: id, version: extension.latestVersion },
      });
      await this.publish(manager, actor, EventTypes.ExtensionDeleted, { extension, version });
      return { extension: toExtensionOutput({ extension, version }), revision: extension.revision };
    });
  }

  async get(
    actor: Actor,
    entity: string,
    id: string,
    options: ExtensionReadOptions,
  ): Promise<ExtensionResult> {
    const record = await this.findLatest(this.dataSource.manager, entity, id);
    if (!record || !this.readable(record, actor, options)) throw new ExtensionNotFoundError(id);
    return { extension: toExtensionOutput(record), revision: record.extension.revision };
  }

  async list(
    actor: Actor,
    entity: string,
    options: ExtensionListOptions,
  ): Promise<Array<ExtensionOutput | ExtensionSummaryOutput>> {
    const query = this.dataSource.manager
      .createQueryBuilder(ExtensionEntity, 'extension')
      .innerJoinAndMapOne(
        'extension.latest',
        ExtensionVersionEntity,
        'version',
        'version.extension_id = extension.id AND version.version = extension.latest_version',
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
    return rows.map((row) => {
      const record = { extension: row, version: row.latest };
      return options.complete ? toExtensionOutput(record) : toExtensionSummary(record);
    });
  }

  private readable(record: ExtensionRecord, actor: Actor, options: ExtensionReadOptions): boolean {
    if (record.extension.deletedAt !== null && !options.includeDeleted) return false;
    return isExtensionVisible(
      { tenantId: record.extension.tenantId, availability: record.version.availability },
      actor,
      options.includePrivate,
    );
  }

  private async findLatest(
    manager: EntityManager,
    entity: string,
    id: string,
  ): Promise<ExtensionRecord | undefined> {
    const extension = await manager.findOne(ExtensionEntity, { where: { id, entity } });
    if (!extension) return undefined;
    const version = await manager.findOneOrFail(ExtensionVersionEntity, {
      where: { extensionId: id, version: extension.latestVersion },
    });
    return { extension, version };
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
    const extension = await manager.findOne(ExtensionEntity, {
      where: { id, entity },
      lock: { mode: 'pessimistic_write' },
    });
    if (!extension) throw new ExtensionNotFoundError(id);
    const version = await manager.findOneOrFail(ExtensionVersionEntity, {
      where: { extensionId: id, version: extension.latestVersion },
    });
    if (!this.readable({ extension, version }, actor, { includeDeleted, includePrivate: true })) {
      throw new ExtensionNotFoundError(id);
    }
    if (extension.publisher !== actor.clientId) throw new ExtensionPublisherMismatchError(id);
    return extension;
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
    input: ExtensionInputDto,
    createdAt: Date,
  ): ExtensionVersionEntity {
    return manager.create(ExtensionVersionEntity, {
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
    actor: Actor,
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
      tenantId: actor.tenantId,
      subject: `extension/${extension.id}`,
      data,
    });
  }
}
