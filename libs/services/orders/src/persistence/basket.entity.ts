import { Column, Entity, PrimaryColumn } from 'typeorm';
import { LIMITS } from '../domain/limits';
import type { Discount, Fulfillment, Guest, OrderItem, PaymentRequest } from '../domain/order';

@Entity({ name: 'baskets' })
export class BasketEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: LIMITS.idLength })
  tenantId!: string;

  @Column({ name: 'store_id', type: 'varchar', length: LIMITS.idLength })
  storeId!: string;

  @Column({ type: 'varchar', length: 16 })
  fulfillment!: Fulfillment;

  /** The store's currency when the basket was started: its lines are priced in it. */
  @Column({ type: 'varchar', length: LIMITS.currencyLength, nullable: true })
  currency!: string | null;

  @Column({ name: 'requested_ready_time', type: 'varchar', length: 64, nullable: true })
  requestedReadyTime!: string | null;

  @Column({ type: 'json' })
  guest!: Guest;

  @Column({ name: 'payment_request', type: 'json', nullable: true })
  paymentRequest!: PaymentRequest | null;

  /** Menu lines only; charge items come from the tenant's config when read. */
  @Column({ type: 'json' })
  lines!: OrderItem[];

  @Column({ type: 'json' })
  discounts!: Discount[];

  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
