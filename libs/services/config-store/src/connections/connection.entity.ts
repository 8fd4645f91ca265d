import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ConnectionEntityType } from './connection-entity-type';

/**
 * A typed link to an object (`id` of kind `entityType`) in one tenant's entity namespace.
 * At most one live row per (tenant, entity, id, entityType); removed rows stay, marked.
 */
@Entity({ name: 'connections' })
export class ConnectionEntity {
  @PrimaryGeneratedColumn('uuid', { name: 'row_id' })
  rowId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  entity!: string;

  @Column({ type: 'text' })
  id!: string;

  @Column({ name: 'entity_type', type: 'text' })
  entityType!: ConnectionEntityType;

  @Column({ type: 'text' })
  publisher!: string;

  /** Distinct within (tenant, entity): the pagination cursor. */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
