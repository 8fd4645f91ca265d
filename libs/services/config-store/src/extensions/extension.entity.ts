import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An extension of the platform-wide registry: its id is unique across publishers and
 * tenants. Its versions live in `extension_versions`; `latestVersion` is the last one saved.
 */
@Entity({ name: 'extensions' })
export class ExtensionEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** The `{entity}` it was published under; other entities' paths do not see it. */
  @Column({ type: 'text' })
  entity!: string;

  @Column({ type: 'text' })
  publisher!: string;

  /** The publisher's tenant: the only one that sees its private versions. */
  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'latest_version', type: 'text' })
  latestVersion!: string;

  /** Bumped by every change; the ETag of the extension. */
  @Column({ type: 'integer' })
  revision!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
