import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An extension of the registry. Its id is unique within its tenant, and among published
 * extensions on the whole platform (ADR 0016): another tenant's private id never collides.
 * Its versions live in `extension_versions`; `latestVersion` is the last one saved.
 */
@Entity({ name: 'extensions' })
export class ExtensionEntity {
  /** The publisher's tenant: the only one that sees its private versions. */
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** The `{entity}` it was published under; other entities' paths do not see it. */
  @Column({ type: 'text' })
  entity!: string;

  @Column({ type: 'text' })
  publisher!: string;

  /**
   * True once any version was Public, and for good: the id is then claimed on the whole
   * platform (a partial unique index), since its public versions stay referenceable.
   */
  @Column({ type: 'boolean' })
  published!: boolean;

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
