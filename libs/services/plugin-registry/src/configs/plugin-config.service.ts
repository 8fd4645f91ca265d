import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
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

@Injectable()
export class PluginConfigService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

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

  async list(tenantId: string, name?: string): Promise<PluginConfigView[]> {
    const rows = await this.dataSource.getRepository(PluginConfigEntity).find({
      where: name === undefined ? { tenantId } : { tenantId, name },
      order: { name: 'ASC', createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map(toView);
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

function toView(entity: PluginConfigEntity): PluginConfigView {
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
