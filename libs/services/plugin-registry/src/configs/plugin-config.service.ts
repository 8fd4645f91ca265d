import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { sqlRows, type Tx } from '@comanda/persistence';
import { namesRealInstant, RequestValidationError } from '@comanda/http';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { isUUID } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import { PluginConfigEntity } from '../persistence/plugin-config.entity';
import { PluginVersionEntity } from '../persistence/plugin-version.entity';
import {
  PluginConfigInvalidError,
  PluginConfigNotFoundError,
  PluginVersionNotReadyError,
} from '../plugin-registry.errors';
import type { RegistryActor } from '../registry-actor';
import { qualifiedTableOf } from '../persistence/table-names';
import type { PluginConfigInput } from './plugin-config-body';
import { checkConfigAgainstParameters } from './plugin-config.rules';

/** A plugin config as clients see it: its further members sit beside the known ones. */
export type PluginConfigView = Record<string, unknown> & {
  id: string;
  name: string;
  version: string;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
};

export interface PluginConfigPage {
  items: PluginConfigView[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

interface PluginConfigRow {
  id: string;
  name: string;
  version: string;
  config: Record<string, unknown>;
  extra: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  /** `created_at` to the microsecond, as text: a `Date` would lose the last three digits. */
  created_at_text: string;
}

@Injectable()
export class PluginConfigService {
  private readonly listSql: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    this.listSql = `
      SELECT id, name, version, config, extra, created_at, updated_at,
             to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_text
        FROM ${qualifiedTableOf(dataSource, PluginConfigEntity)}
       WHERE tenant_id = $1
         AND ($2::text IS NULL OR name = $2)
         AND ($3::timestamptz IS NULL OR (created_at, id) > ($3, $4::uuid))
       ORDER BY created_at, id
       LIMIT $5`;
  }

  async create(
    manager: Tx,
    actor: RegistryActor,
    input: PluginConfigInput,
  ): Promise<PluginConfigView> {
    await this.assertLoadable(manager, actor.tenantId, input);
    const entity = manager.getRepository(PluginConfigEntity).create({
      id: randomUUID(),
      tenantId: actor.tenantId,
      name: input.name,
      version: input.version,
      config: input.config,
      extra: input.extra,
      updatedBy: actor.clientId,
    });
    const saved = await manager.getRepository(PluginConfigEntity).save(entity);
    await this.announce(manager, actor, saved);
    return toView(saved);
  }

  /** Replaces the config with that id; switching versions is how a new plugin version goes live. */
  async update(
    manager: Tx,
    actor: RegistryActor,
    id: string,
    input: PluginConfigInput,
  ): Promise<PluginConfigView> {
    if (!isUUID(id)) throw new PluginConfigNotFoundError(id);
    const configs = manager.getRepository(PluginConfigEntity);
    const entity = await configs.findOne({
      where: { id, tenantId: actor.tenantId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!entity) throw new PluginConfigNotFoundError(id);
    await this.assertLoadable(manager, actor.tenantId, input);
    entity.name = input.name;
    entity.version = input.version;
    entity.config = input.config;
    entity.extra = input.extra;
    entity.updatedBy = actor.clientId;
    const saved = await configs.save(entity);
    await this.announce(manager, actor, saved);
    return toView(saved);
  }

  /**
   * A page of the tenant's configs (of one plugin when `name` is given), oldest first, by
   * creation to the microsecond, then id. Both never change, so a config is listed once
   * however the others are created or renamed meanwhile (one created meanwhile comes on a
   * later page); the cursor is the position of the page's last config.
   */
  async list(
    tenantId: string,
    query: { name?: string; limit: number; cursor?: string },
  ): Promise<PluginConfigPage> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await sqlRows<PluginConfigRow>(this.dataSource, this.listSql, [
      tenantId,
      query.name ?? null,
      after?.createdAt ?? null,
      after?.id ?? null,
      query.limit + 1,
    ]);
    const items = rows.slice(0, query.limit);
    const last = items[items.length - 1];
    return rows.length > query.limit && last
      ? { items: items.map(rowToView), nextCursor: encodeCursor(last) }
      : { items: items.map(rowToView) };
  }

  /**
   * The frontend loads the version a config names with that config: it must have code and a
   * manifest, and the config must satisfy the manifest. The version row is share-locked so a
   * manifest cannot change under the check before commit.
   */
  private async assertLoadable(
    manager: EntityManager,
    tenantId: string,
    input: PluginConfigInput,
  ): Promise<void> {
    const version = await manager.getRepository(PluginVersionEntity).findOne({
      select: { tenantId: true, name: true, version: true, manifest: true },
      where: { tenantId, name: input.name, version: input.version },
      lock: { mode: 'pessimistic_read' },
    });
    if (!version)
      throw new PluginVersionNotReadyError(input.name, input.version, ['code', 'manifest']);
    if (!version.manifest)
      throw new PluginVersionNotReadyError(input.name, input.version, ['manifest']);
    const errors = checkConfigAgainstParameters(input.config, version.manifest.parameters);
    if (errors.length > 0) throw new PluginConfigInvalidError(input.name, input.version, errors);
  }

  private async announce(
    manager: EntityManager,
    actor: RegistryActor,
    config: PluginConfigEntity,
  ): Promise<void> {
    await this.outbox.add(manager, {
      type: EventTypes.PluginConfigUpdated,
      tenantId: actor.tenantId,
      subject: config.id,
      data: { id: config.id, name: config.name, version: config.version },
    });
  }
}

function rowToView(row: PluginConfigRow): PluginConfigView {
  return toView({
    id: row.id,
    name: row.name,
    version: row.version,
    config: row.config,
    extra: row.extra,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

function encodeCursor(row: PluginConfigRow): string {
  return Buffer.from(JSON.stringify([row.created_at_text, row.id])).toString('base64url');
}

const CURSOR_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/;

/** An instant as the list writes it, naming a real moment (no February 30, no year 0). */
function isCursorInstant(value: unknown): value is string {
  const match = typeof value === 'string' ? CURSOR_INSTANT.exec(value) : null;
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  // Year 0 is no year of PostgreSQL's calendar (1 BC follows 1 AD), nor of `created_at`.
  return year >= 1 && namesRealInstant(year, month, day, hour, minute, second);
}

/** The position a cursor names; 400 for a cursor this list did not hand out. */
function decodeCursor(cursor: string): { createdAt: string; id: string } {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    position = undefined;
  }
  if (
    Array.isArray(position) &&
    position.length === 2 &&
    isCursorInstant(position[0]) &&
    isUUID(position[1])
  ) {
    return { createdAt: position[0], id: position[1] as string };
  }
  throw new RequestValidationError([{ path: 'cursor', message: 'is not a cursor of this list' }]);
}

function toView(
  entity: Pick<
    PluginConfigEntity,
    'id' | 'name' | 'version' | 'config' | 'extra' | 'createdAt' | 'updatedAt'
  >,
): PluginConfigView {
  return {
    id: entity.id,
    name: entity.name,
    version: entity.version,
    config: entity.config,
    ...entity.extra,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}
