import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../common/actor';
import type { ExtensionReference } from '../extensions/extension-reference';
import { ExtensionReferenceValidator } from '../extensions/extension-reference.validator';
import { toExtensionOutput, type ExtensionOutput } from '../extensions/extension.output';
import { ConfigService } from './config.service';

export interface ResolvedReference extends ExtensionReference {
  /** The pinned extension version; null when it is no longer available to the caller. */
  extension: ExtensionOutput | null;
}

export interface ConfigValuesOutput {
  id: string;
  entity: string;
  version: number;
  values: Record<string, unknown>;
  /** With `complete=true`: each extension reference, resolved to the version it pins. */
  extensions?: ResolvedReference[];
}

/** What a running integration reads: the current config's values, optionally with its extensions. */
@Injectable()
export class ConfigValuesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly configs: ConfigService,
    private readonly references: ExtensionReferenceValidator,
  ) {}

  async read(
    actor: Actor,
    entity: string,
    options: { complete: boolean },
  ): Promise<ConfigValuesOutput> {
    const { config } = await this.configs.getCurrent(actor, entity, { includeDeleted: false });
    const output: ConfigValuesOutput = {
      id: config.id,
      entity: config.entity,
      version: config.version,
      values: config.values,
    };
    if (options.complete) {
      // A pinned version stays resolvable after its extension is removed: the config was
      // saved against it and keeps working until a new version drops the reference.
      const resolved = await this.references.resolve(
        this.dataSource.manager,
        actor,
        config.extensionReferences,
        true,
      );
      output.extensions = config.extensionReferences.map((reference, index) => {
        const record = resolved[index];
        return { ...reference, extension: record ? toExtensionOutput(record) : null };
      });
    }
    return output;
  }
}
