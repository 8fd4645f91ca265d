import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { rcompare } from 'semver';
import { DataSource } from 'typeorm';
import { PluginVersionEntity } from '../persistence/plugin-version.entity';
import { PluginRegistryConfig } from '../plugin-registry.config';
import {
  InvalidPluginCodeError,
  PluginCodeTooLargeError,
  PluginCodeUncheckableError,
  PluginNotFoundError,
  PluginVersionNotFoundError,
} from '../plugin-registry.errors';
import type { RegistryActor } from '../registry-actor';
import { qualifiedTableOf } from '../persistence/table-names';
import { versionSubject } from '../plugin-identity';
import { codeEtag } from './code-etag';
import { PluginCodeChecker } from './plugin-code.checker';

export interface StoredCode {
  name: string;
  version: string;
  sha256: string;
  etag: string;
  size: number;
  /** False on the first upload of this name and version, true when it replaced earlier code. */
  overwritten: boolean;
  uploadedAt: Date;
}

/** Uploaded code that passed {@link PluginCodeService.checked}; nothing else is stored. */
export interface CheckedCode {
  readonly bytes: Buffer;
  readonly __checked: unique symbol;
}

export interface ServedCode {
  bytes: Buffer;
  etag: string;
}

export interface PluginVersionSummary {
  version: string;
  sha256: string;
  etag: string;
  size: number;
  hasManifest: boolean;
  codeUploadedAt: Date;
  manifestUploadedAt: Date | null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

@Injectable()
export class PluginCodeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly config: PluginRegistryConfig,
    private readonly checker: PluginCodeChecker,
  ) {}

  /**
   * The code, once it is known to be a module the frontend can load. Before any transaction:
   * the check runs on a thread of its own and may take a while for a large module.
   */
  async checked(body: string | Buffer): Promise<CheckedCode> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (bytes.length > this.config.PLUGIN_CODE_MAX_BYTES) {
      throw new PluginCodeTooLargeError(bytes.length, this.config.PLUGIN_CODE_MAX_BYTES);
    }
    const problem = await this.checker.check(typeof body === 'string' ? body : decodeUtf8(bytes));
    if (problem?.kind === 'too_deep')
      throw new PluginCodeUncheckableError(`it nests deeper than the parser can follow`);
    if (problem) throw new InvalidPluginCodeError(problem.message, problem.line, problem.column);
    return { bytes } as CheckedCode;
  }

  /** Stores the code of one version, replacing what an earlier upload of that version stored. */
  async upload(
    manager: Tx,
    actor: RegistryActor,
    name: string,
    version: string,
    { bytes }: CheckedCode,
  ): Promise<StoredCode> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const table = qualifiedTableOf(this.dataSource, PluginVersionEntity);
    // One statement, so two first uploads of one version racing cannot both insert.
    const [row] = (await manager.query(
      `INSERT INTO ${table} AS v (tenant_id, name, version, code, code_sha256, code_size, code_uploaded_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (tenant_id, name, version) DO UPDATE
         SET code = EXCLUDED.code, code_sha256 = EXCLUDED.code_sha256,
             code_size = EXCLUDED.code_size, code_uploaded_at = EXCLUDED.code_uploaded_at
       RETURNING (xmax = 0) AS inserted, code_uploaded_at`,
      [actor.tenantId, name, version, bytes, sha256, bytes.length],
    )) as Array<{ inserted: boolean; code_uploaded_at: Date }>;
    const overwritten = !row.inserted;
    await this.outbox.add(manager, {
      type: EventTypes.PluginCodeUploaded,
      tenantId: actor.tenantId,
      subject: versionSubject(name, version),
      data: { name, version, sha256, overwritten },
    });
    return {
      name,
      version,
      sha256,
      etag: codeEtag(sha256),
      size: bytes.length,
      overwritten,
      uploadedAt: row.code_uploaded_at,
    };
  }

  async code(tenantId: string, name: string, version: string): Promise<ServedCode> {
    const row = await this.dataSource.getRepository(PluginVersionEntity).findOne({
      select: { code: true, codeSha256: true },
      where: { tenantId, name, version },
    });
    if (!row) throw new PluginVersionNotFoundError(name, version);
    return { bytes: row.code, etag: codeEtag(row.codeSha256) };
  }

  /** Every version of a plugin, newest (by semantic version) first; the code itself is not read. */
  async versions(tenantId: string, name: string): Promise<PluginVersionSummary[]> {
    const rows = await this.dataSource.getRepository(PluginVersionEntity).find({
      select: {
        version: true,
        codeSha256: true,
        codeSize: true,
        codeUploadedAt: true,
        manifestUploadedAt: true,
      },
      where: { tenantId, name },
    });
    if (rows.length === 0) throw new PluginNotFoundError(name);
    return rows
      .sort((a, b) => rcompare(a.version, b.version))
      .map((row) => ({
        version: row.version,
        sha256: row.codeSha256,
        etag: codeEtag(row.codeSha256),
        size: row.codeSize,
        hasManifest: row.manifestUploadedAt !== null,
        codeUploadedAt: row.codeUploadedAt,
        manifestUploadedAt: row.manifestUploadedAt,
      }));
  }
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new InvalidPluginCodeError('the code is not valid UTF-8', 1, 1);
  }
}
