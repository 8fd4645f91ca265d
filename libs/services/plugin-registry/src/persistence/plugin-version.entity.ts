import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { PluginManifest } from '../manifest/manifest-parameter';

/** One version of one tenant's plugin: its code exactly as uploaded, and its manifest once given. */
@Entity({ name: 'plugin_versions' })
export class PluginVersionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @PrimaryColumn({ type: 'text' })
  version!: string;

  /** The bytes as received: served back byte for byte. */
  @Column({ type: 'bytea' })
  code!: Buffer;

  /** Hex SHA-256 of `code`; the ETag is derived from it. */
  @Column({ name: 'code_sha256', type: 'text' })
  codeSha256!: string;

  @Column({ name: 'code_size', type: 'integer' })
  codeSize!: number;

  @Column({ name: 'code_uploaded_at', type: 'timestamptz' })
  codeUploadedAt!: Date;

  @Column({ type: 'jsonb', nullable: true })
  manifest!: PluginManifest | null;

  @Column({ name: 'manifest_uploaded_at', type: 'timestamptz', nullable: true })
  manifestUploadedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
