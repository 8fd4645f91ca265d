import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, ORDER_CHARGES_ENTITY, orderChargesProblems } from '@comanda/contracts';
import { rolledBack, schemaOf, sqlRows, takeTurn, type Tx } from '@comanda/persistence';
import { OutboxWriter } from '@comanda/messaging';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor';
import { CLOCK, type Clock } from '../common/clock';
import { ifMatchSatisfied } from '../common/etag';
import { violatedUniqueConstraint } from '../common/pg-errors';
import { ExtensionReferenceValidator } from '../extensions/extension-reference.validator';
import { ConfigVersionEntity } from './config-version.entity';
import {
  ConfigAlreadyExistsError,
  ConfigIdMismatchError,
  ConfigNotFoundError,
  ConfigValuesInvalidError,
  ConfigVersionNotFoundError,
  VersionConflictError,
} from './config.errors';
import type { ConfigInputDto } from './config-input.dto';
import { toConfigOutput, type ConfigOutput } from './config.output';

export interface ConfigResult {
  config: ConfigOutput;
  /** Version number of the result: the ETag. */
  version: number;
}

export interface SaveOptions {
  /** Run every check and build the output, then roll back: nothing is stored or published. */
  dryRun: boolean;
  ifMatch?: string;
}

const VERSION_KEY = 'config_versions_version_key';

/** An instant as `Date#toISOString` writes it (every stored instant has whole milliseconds). */
function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * A version as the API answers it ({@link ConfigOutput}, members in its order) and its
 * number: what the GETs need and nothing else, the instants already as text, so a read
 * parses no `Date` and formats none (issue 10).
 */
const OUTPUT_COLUMNS = `config_id AS id, entity, version, publisher,
  extension_references AS "extensionReferences", "values",
  ${isoText('config_created_at')} AS "createdAt",
  ${isoText('coalesce(deleted_at, saved_at)')} AS "lastUpdateDate",
  deleted_at IS NOT NULL AS deleted`;

/** The reads every config GET makes, as prepared SQL (no query builder per request). */
function readStatements(schema: string) {
  const from = `SELECT ${OUTPUT_COLUMNS} FROM "${schema}".config_versions`;
  return {
    current: `${from} WHERE tenant_id = $1 AND entity = $2 AND deleted_at IS NULL
      ORDER BY version DESC LIMIT 1`,
    latest: `${from} WHERE tenant_id = $1 AND entity = $2 ORDER BY version DESC LIMIT 1`,
    version: `${from} WHERE tenant_id = $1 AND entity = $2 AND version = $3`,
  };
}

/**
 * A tenant's config under one entity: a numbered, append-only list of versions. The current
 * config is the highest version not removed; removing marks every version.
 */
@Injectable()
export class ConfigService {
  private readonly reads: ReturnType<typeof readStatements>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly references: ExtensionReferenceValidator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.reads = readStatements(schemaOf(dataSource));
  }

  /** Version 1 of a new config (or the next number after a removed one). */
  create(
    tx: Tx,
    actor: Actor,
    entity: string,
    input: ConfigInputDto,
    options: SaveOptions,
  ): Promise<ConfigResult> {
    return this.save(tx, 'create', actor, entity, input, options);
  }

  /** The next version of the current config. */
  update(
    tx: Tx,
    actor: Actor,
    entity: string,
    input: ConfigInputDto,
    options: SaveOptions,
  ): Promise<ConfigResult> {
    return this.save(tx, 'update', actor, entity, input, options);
  }

  async getCurrent(
    actor: Actor,
    entity: string,
    options: { includeDeleted: boolean },
  ): Promise<ConfigResult> {
    const [config] = await sqlRows<ConfigOutput>(
      this.dataSource,
      options.includeDeleted ? this.reads.latest : this.reads.current,
      [actor.tenantId, entity],
    );
    if (!config) throw new ConfigNotFoundError(entity);
    return { config, version: config.version };
  }

  async listVersions(
    actor: Actor,
    entity: string,
    options: { take: number; includeDeleted: boolean; includeDatatypes: boolean },
  ): Promise<ConfigOutput[]> {
    const rows = await this.dataSource.manager.find(ConfigVersionEntity, {
      where: {
        tenantId: actor.tenantId,
        entity,
        ...(options.includeDeleted ? {} : { deletedAt: IsNull() }),
      },
      order: { version: 'DESC' },
      take: options.take,
    });
    return rows.map((row) => toConfigOutput(row, { includeDatatypes: options.includeDatatypes }));
  }

  /** Any saved version, removed or not: history stays readable. */
  async getVersion(actor: Actor, entity: string, version: number): Promise<ConfigResult> {
    const [config] = await sqlRows<ConfigOutput>(this.dataSource, this.reads.version, [
      actor.tenantId,
      entity,
      version,
    ]);
    if (!config) throw new ConfigVersionNotFoundError(entity, version);
    return { config, version: config.version };
  }

  /** Marks every version removed; answers the current one as it now reads. */
  async remove(
    manager: Tx,
    actor: Actor,
    entity: string,
    options: { ifMatch?: string },
  ): Promise<ConfigResult> {
    await this.takeTurn(manager, actor, entity);
    const current = await this.current(manager, actor, entity);
    if (!current) throw new ConfigNotFoundError(entity);
    if (!ifMatchSatisfied(options.ifMatch, current.version))
      throw new VersionConflictError('The config');
    const now = this.clock.now();
    await manager
      .createQueryBuilder()
      .update(ConfigVersionEntity)
      .set({ deletedAt: now })
      .where('tenant_id = :tenantId AND entity = :entity AND deleted_at IS NULL', {
        tenantId: actor.tenantId,
        entity,
      })
      .execute();
    current.deletedAt = now;
    await this.publish(manager, actor, current);
    return { config: toConfigOutput(current), version: current.version };
  }

  private async save(
    tx: Tx,
    mode: 'create' | 'update',
    actor: Actor,
    entity: string,
    input: ConfigInputDto,
    options: SaveOptions,
  ): Promise<ConfigResult> {
    const saveIn = async (manager: EntityManager): Promise<ConfigResult> => {
      await this.takeTurn(manager, actor, entity);
      const latest = await this.latest(manager, actor, entity);
      const current = latest && latest.deletedAt === null ? latest : undefined;
      if (mode === 'create' && current) throw new ConfigAlreadyExistsError(entity);
      if (mode === 'update') {
        if (!current) throw new ConfigNotFoundError(entity);
        if (current.configId !== input.id)
          throw new ConfigIdMismatchError(current.configId, input.id);
        if (!ifMatchSatisfied(options.ifMatch, current.version))
          throw new VersionConflictError('The config');
      }
      assertValuesFit(entity, input.values ?? {});
      const references = input.extensionReferences ?? [];
      await this.references.assertResolvable(
        manager,
        actor,
        references.map((reference, index) => ({
          path: `extensionReferences[${index}]`,
          reference,
        })),
      );
      const now = this.clock.now();
      const row = manager.create(ConfigVersionEntity, {
        tenantId: actor.tenantId,
        entity,
        configId: input.id,
        version: (latest?.version ?? 0) + 1,
        publisher: current?.publisher ?? actor.clientId,
        savedBy: actor.clientId,
        extensionReferences: references.map(({ publisher, dataId, version }) => ({
          publisher,
          dataId,
          version,
        })),
        values: input.values ?? {},
        configCreatedAt: current?.configCreatedAt ?? now,
        savedAt: now,
        deletedAt: null,
      });
      await manager.save(ConfigVersionEntity, row);
      await this.publish(manager, actor, row);
      return { config: toConfigOutput(row), version: row.version };
    };

    try {
      return options.dryRun ? await rolledBack(tx, saveIn) : await saveIn(tx);
    } catch (error) {
      // Saves take turns (takeTurn); kept for a writer that does not, if one ever appears.
      if (violatedUniqueConstraint(error) === VERSION_KEY) {
        throw mode === 'create'
          ? new ConfigAlreadyExistsError(entity)
          : new VersionConflictError('The config');
      }
      throw error;
    }
  }

  /**
   * Writers of one config take turns until their transaction ends: each then reads the
   * version the one before it committed. A save without If-Match is the next version
   * whatever raced it (last writer wins, as a PUT without a precondition means); one with
   * If-Match loses with 409 only when the version it names is no longer current.
   */
  private async takeTurn(manager: EntityManager, actor: Actor, entity: string): Promise<void> {
    await takeTurn(manager, `comanda:config:${actor.tenantId}`, entity);
  }

  private latest(
    manager: EntityManager,
    actor: Actor,
    entity: string,
  ): Promise<ConfigVersionEntity | null> {
    return manager.findOne(ConfigVersionEntity, {
      where: { tenantId: actor.tenantId, entity },
      order: { version: 'DESC' },
    });
  }

  /** The current version; callers that write have taken their turn (takeTurn) first. */
  private current(
    manager: EntityManager,
    actor: Actor,
    entity: string,
  ): Promise<ConfigVersionEntity | null> {
    return manager.findOne(ConfigVersionEntity, {
      where: { tenantId: actor.tenantId, entity, deletedAt: IsNull() },
      order: { version: 'DESC' },
    });
  }

  private async publish(
    manager: EntityManager,
    actor: Actor,
    row: ConfigVersionEntity,
  ): Promise<void> {
    await this.outbox.add(manager, {
      type: EventTypes.ConfigUpdated,
      tenantId: actor.tenantId,
      subject: `config/${row.entity}`,
      data: {
        entity: row.entity,
        configId: row.configId,
        version: row.version,
        publisher: row.publisher,
        deleted: row.deletedAt !== null,
        values: row.values,
      },
    });
  }
}

/** Values another service reads with a fixed shape must have it (only `order-charges` has one). */
function assertValuesFit(entity: string, values: Record<string, unknown>): void {
  if (entity !== ORDER_CHARGES_ENTITY) return;
  const problems = orderChargesProblems(values);
  if (problems.length > 0) throw new ConfigValuesInvalidError(entity, problems);
}
