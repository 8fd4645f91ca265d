import { Column, Entity, PrimaryColumn } from 'typeorm';
import { LIMITS } from '../domain/limits';

/** Orders' own copy of each tenant's `order-charges` config, fed by `config.updated`. */
@Entity({ name: 'order_charges' })
export class OrderChargesEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: LIMITS.idLength })
  tenantId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'boolean' })
  deleted!: boolean;

  /** `json`, not `jsonb`: the charges' mappingDetails keep their key order. */
  @Column({ type: 'json' })
  values!: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
