import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Which version of a plugin a tenant's frontend loads, and with what settings. */
@Entity({ name: 'plugin_configs' })
@Index('plugin_configs_tenant_name', ['tenantId', 'name'])
export class PluginConfigEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  version!: string;

  @Column({ type: 'jsonb' })
  config!: Record<string, unknown>;

  /** Members of the plugin config beyond name, version and config, kept as sent. */
  @Column({ type: 'jsonb' })
  extra!: Record<string, unknown>;

  /** Client id of the last writer. */
  @Column({ name: 'updated_by', type: 'text' })
  updatedBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
