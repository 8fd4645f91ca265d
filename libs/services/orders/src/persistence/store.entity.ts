import { Column, Entity, PrimaryColumn } from 'typeorm';
import { LIMITS } from '../domain/limits';
import type { MappingDetails } from '../domain/mapping-details';

/** A menu item as imported; prices in minor units of the store's currency. */
export interface MenuItem {
  id: string;
  type: string;
  title: string;
  price: number;
  mappingDetails: MappingDetails;
}

/**
 * A store of a tenant with its menu. `json` (not `jsonb`) columns keep mappingDetails as
 * the text that was sent: key order and every character survive.
 */
@Entity({ name: 'stores' })
export class StoreEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: LIMITS.idLength })
  tenantId!: string;

  @PrimaryColumn({ name: 'store_id', type: 'varchar', length: LIMITS.idLength })
  storeId!: string;

  @Column({ type: 'varchar', length: LIMITS.titleLength })
  name!: string;

  @Column({ type: 'varchar', length: LIMITS.currencyLength })
  currency!: string;

  @Column({ name: 'mapping_details', type: 'json' })
  mappingDetails!: MappingDetails;

  @Column({ name: 'payment_merchant_id', type: 'varchar', length: LIMITS.idLength, nullable: true })
  paymentMerchantId!: string | null;

  @Column({ type: 'json' })
  menu!: MenuItem[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
