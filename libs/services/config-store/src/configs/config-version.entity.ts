import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ExtensionReference } from '../extensions/extension-reference';

/** One saved version of a tenant's config under one entity; versions are never rewritten. */
@Entity({ name: 'config_versions' })
export class ConfigVersionEntity {
  @PrimaryGeneratedColumn('uuid', { name: 'row_id' })
  rowId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  entity!: string;

  @Column({ name: 'config_id', type: 'text' })
  configId!: string;

  @Column({ type: 'integer' })
  version!: number;

  /** The client that created the config (version 1 of its lineage). */
  @Column({ type: 'text' })
  publisher!: string;

  /** The client that saved this version. */
  @Column({ name: 'saved_by', type: 'text' })
  savedBy!: string;

  @Column({ name: 'extension_references', type: 'jsonb' })
  extensionReferences!: ExtensionReference[];

  @Column({ name: 'values', type: 'jsonb' })
  values!: Record<string, unknown>;

  @Column({ name: 'config_created_at', type: 'timestamptz' })
  configCreatedAt!: Date;

  @Column({ name: 'saved_at', type: 'timestamptz' })
  savedAt!: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
