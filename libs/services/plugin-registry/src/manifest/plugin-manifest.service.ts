import { Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import type { Tx } from '@comanda/persistence';
import { OutboxWriter } from '@comanda/messaging';
import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { PluginVersionEntity } from '../persistence/plugin-version.entity';
import { versionSubject } from '../plugin-identity';
import {
  InvalidPluginManifestError,
  PluginCodeMissingError,
  PluginManifestNotFoundError,
  PluginVersionNotFoundError,
} from '../plugin-registry.errors';
import type { RegistryActor } from '../registry-actor';
import type { PluginManifest } from './manifest-parameter';
import { checkManifest, normalizeManifest } from './manifest.rules';

export interface StoredManifest {
  name: string;
  manifest: PluginManifest;
  /** False when this version had no manifest before. */
  overwritten: boolean;
}

@Injectable()
export class PluginManifestService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  /** Attaches the manifest to the version its body names; that version's code must exist. */
  async upload(
    manager: Tx,
    actor: RegistryActor,
    name: string,
    input: PluginManifest,
  ): Promise<StoredManifest> {
    const errors = checkManifest(input);
    if (errors.length > 0) throw new InvalidPluginManifestError(errors);
    const manifest = normalizeManifest(input);

    const versions = manager.getRepository(PluginVersionEntity);
    const key = { tenantId: actor.tenantId, name, version: manifest.version };
    const current = await versions.findOne({
      select: { tenantId: true, name: true, version: true, manifestUploadedAt: true },
      where: key,
      lock: { mode: 'pessimistic_write' },
    });
    if (!current) throw new PluginCodeMissingError(name, manifest.version);
    // TypeORM's partial type cannot follow `unknown` (a parameter default) inside jsonb.
    const manifestColumn = manifest as QueryDeepPartialEntity<PluginManifest>;
    await versions.update(key, { manifest: manifestColumn, manifestUploadedAt: new Date() });
    await this.outbox.add(manager, {
      type: EventTypes.PluginManifestUploaded,
      tenantId: actor.tenantId,
      subject: versionSubject(name, manifest.version),
      data: { name, version: manifest.version },
    });
    return { name, manifest, overwritten: current.manifestUploadedAt !== null };
  }

  async manifest(tenantId: string, name: string, version: string): Promise<PluginManifest> {
    const row = await this.dataSource.getRepository(PluginVersionEntity).findOne({
      select: { version: true, manifest: true },
      where: { tenantId, name, version },
    });
    if (!row) throw new PluginVersionNotFoundError(name, version);
    if (!row.manifest) throw new PluginManifestNotFoundError(name, version);
    return row.manifest;
  }
}
