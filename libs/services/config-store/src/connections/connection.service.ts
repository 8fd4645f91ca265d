import { Inject, Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import type { Tx } from '@comanda/persistence';
import { OutboxWriter } from '@comanda/messaging';
import {
  DataSource,
  IsNull,
  MoreThan,
  Not,
  type EntityManager,
  type FindOptionsWhere,
} from 'typeorm';
import type { Actor } from '../common/actor';
import { CLOCK, type Clock } from '../common/clock';
import { allocateCreatedAt } from '../common/created-at-allocator';
import type { PageRequest } from '../common/page';
import { violatedUniqueConstraint } from '../common/pg-errors';
import type { ConnectionEntityType } from './connection-entity-type';
import { ConnectionEntity } from './connection.entity';
import {
  ConnectionAlreadyExistsError,
  ConnectionAmbiguousError,
  ConnectionNotFoundError,
} from './connection.errors';
import type { ConnectionInputDto } from './connection-input.dto';
import { toConnectionOutput, type ConnectionOutput } from './connection.output';

const LIVE_KEY = 'connections_live_key';

type ConnectionEvent = (typeof EventTypes)[
  'ConnectionCreated' | 'ConnectionUpdated' | 'ConnectionDeleted'];

/**
 * Typed links of a tenant's entity namespace. A connection is named by its id and type;
 * where one id has a single live type, the type may be left out.
 */
@Injectable()
export class ConnectionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(
    manager: Tx,
    actor: Actor,
    entity: string,
    input: ConnectionInputDto,
  ): Promise<ConnectionOutput> {
    try {
      const now = this.clock.now();
      const table = manager.connection.getMetadata(ConnectionEntity).tablePath;
      const createdAt = await allocateCreatedAt(
        manager,
        {
          lockKey: [`config.connections/${actor.tenantId}`, entity],
          maxSql: `SELECT max(created_at) AS latest FROM ${table} WHERE tenant_id = $1 AND entity = $2`,
          parameters: [actor.tenantId, entity],
        },
        now,
      );
      const row = manager.create(ConnectionEntity, {
        tenantId: actor.tenantId,
        entity,
        id: input.id,
        entityType: input.entityType,
        publisher: actor.clientId,
        createdAt,
        updatedAt: createdAt,
        deletedAt: null,
      });
      await manager.insert(ConnectionEntity, row);
      await this.publish(manager, actor, EventTypes.ConnectionCreated, row);
      return toConnectionOutput(row);
    } catch (error) {
      if (violatedUniqueConstraint(error) === LIVE_KEY)
        throw new ConnectionAlreadyExistsError(input.id, input.entityType);
      throw error;
    }
  }

  async get(
    actor: Actor,
    entity: string,
    id: string,
    options: { entityType?: ConnectionEntityType; includeDeleted: boolean },
  ): Promise<ConnectionOutput> {
    const manager = this.dataSource.manager;
    const live = await this.find(manager, actor, entity, id, options.entityType, false);
    if (live) return toConnectionOutput(live);
    if (options.includeDeleted) {
      const removed = await manager.find(ConnectionEntity, {
        where: this.key(actor, entity, id, options.entityType, true),
        order: { deletedAt: 'DESC' },
      });
      if (!options.entityType && new Set(removed.map((row) => row.entityType)).size > 1) {
        throw new ConnectionAmbiguousError(id);
      }
      if (removed[0]) return toConnectionOutput(removed[0]);
    }
    throw new ConnectionNotFoundError(id);
  }

  /** Replaces the connection `id` (of `input.entityType`, when the id has several) with `input`. */
  async update(
    manager: Tx,
    actor: Actor,
    entity: string,
    id: string,
    input: ConnectionInputDto,
  ): Promise<void> {
    try {
      const sameType = await this.find(manager, actor, entity, id, input.entityType, true);
      const row = sameType ?? (await this.find(manager, actor, entity, id, undefined, true));
      if (!row) throw new ConnectionNotFoundError(id);
      row.id = input.id;
      row.entityType = input.entityType;
      row.updatedAt = this.clock.now();
      await manager.save(ConnectionEntity, row);
      await this.publish(manager, actor, EventTypes.ConnectionUpdated, row);
    } catch (error) {
      if (violatedUniqueConstraint(error) === LIVE_KEY)
        throw new ConnectionAlreadyExistsError(input.id, input.entityType);
      throw error;
    }
  }

  async remove(
    manager: Tx,
    actor: Actor,
    entity: string,
    id: string,
    options: { entityType?: ConnectionEntityType },
  ): Promise<ConnectionOutput> {
    const row = await this.find(manager, actor, entity, id, options.entityType, true);
    if (!row) throw new ConnectionNotFoundError(id);
    row.deletedAt = this.clock.now();
    await manager.save(ConnectionEntity, row);
    await this.publish(manager, actor, EventTypes.ConnectionDeleted, row);
    return toConnectionOutput(row);
  }

  async list(
    actor: Actor,
    entity: string,
    options: { entityId?: string; entityType?: ConnectionEntityType; page: PageRequest },
  ): Promise<ConnectionOutput[]> {
    const rows = await this.dataSource.manager.find(ConnectionEntity, {
      where: {
        tenantId: actor.tenantId,
        entity,
        deletedAt: IsNull(),
        ...(options.entityId !== undefined ? { id: options.entityId } : {}),
        ...(options.entityType !== undefined ? { entityType: options.entityType } : {}),
        ...(options.page.createdAfter ? { createdAt: MoreThan(options.page.createdAfter) } : {}),
      },
      order: { createdAt: 'ASC', id: 'ASC', rowId: 'ASC' },
      take: options.page.limit,
    });
    return rows.map(toConnectionOutput);
  }

  /** The live connection `id` (of `entityType` when given); several types without one is ambiguous. */
  private async find(
    manager: EntityManager,
    actor: Actor,
    entity: string,
    id: string,
    entityType: ConnectionEntityType | undefined,
    forUpdate: boolean,
  ): Promise<ConnectionEntity | undefined> {
    const rows = await manager.find(ConnectionEntity, {
      where: this.key(actor, entity, id, entityType, false),
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (rows.length > 1) throw new ConnectionAmbiguousError(id);
    return rows[0];
  }

  private key(
    actor: Actor,
    entity: string,
    id: string,
    entityType: ConnectionEntityType | undefined,
    removed: boolean,
  ): FindOptionsWhere<ConnectionEntity> {
    return {
      tenantId: actor.tenantId,
      entity,
      id,
      deletedAt: removed ? Not(IsNull()) : IsNull(),
      ...(entityType ? { entityType } : {}),
    };
  }

  private async publish(
    manager: EntityManager,
    actor: Actor,
    type: ConnectionEvent,
    row: ConnectionEntity,
  ): Promise<void> {
    await this.outbox.add(manager, {
      type,
      tenantId: actor.tenantId,
      subject: `connection/${row.entity}/${row.id}`,
      data: {
        id: row.id,
        entity: row.entity,
        entityType: row.entityType,
        publisher: row.publisher,
      },
    });
  }
}
