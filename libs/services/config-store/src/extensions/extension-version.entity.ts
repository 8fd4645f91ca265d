import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ExtensionReference } from './extension-reference';

export const AVAILABILITIES = ['Public', 'Private'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

/** One saved version of an extension; kept so that a config's reference can pin it. */
@Entity({ name: 'extension_versions' })
export class ExtensionVersionEntity {
  /** With `extensionId`, names its extension: ids are unique per tenant (ADR 0016). */
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ name: 'extension_id', type: 'text' })
  extensionId!: string;

  @PrimaryColumn({ type: 'text' })
  version!: string;

  @Column({ type: 'text' })
  availability!: Availability;

  @Column({ name: 'base_type', type: 'text' })
  baseType!: string;

  @Column({ name: 'extension_references', type: 'jsonb' })
  extensionReferences!: Record<string, ExtensionReference>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
