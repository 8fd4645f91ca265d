import { Column, Entity, PrimaryColumn } from 'typeorm';
import { LIMITS } from '../domain/limits';
import type {
  Discount,
  Failure,
  Fulfillment,
  Guest,
  OrderItem,
  OrderPayment,
  OrderStatus,
  PaymentRequest,
  Placement,
  StoreDetails,
  TimelineEntry,
  Totals,
} from '../domain/order';

/**
 * An order: a snapshot of its basket, store and charges taken at checkout (so no later
 * catalogue change alters it), its placement and payment state, and its timeline.
 */
@Entity({ name: 'orders' })
export class OrderEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: LIMITS.idLength })
  tenantId!: string;

  @Column({ name: 'basket_id', type: 'uuid' })
  basketId!: string;

  @Column({ name: 'store_id', type: 'varchar', length: LIMITS.idLength })
  storeId!: string;

  @Column({ type: 'varchar', length: 32 })
  status!: OrderStatus;

  @Column({ type: 'varchar', length: 16 })
  fulfillment!: Fulfillment;

  @Column({ name: 'requested_ready_time', type: 'varchar', length: 64, nullable: true })
  requestedReadyTime!: string | null;

  @Column({ type: 'json' })
  guest!: Guest;

  @Column({ name: 'store_details', type: 'json' })
  storeDetails!: StoreDetails;

  @Column({ type: 'json' })
  items!: OrderItem[];

  @Column({ type: 'json' })
  discounts!: Discount[];

  @Column({ type: 'json' })
  totals!: Totals;

  @Column({ name: 'payment_request', type: 'json', nullable: true })
  paymentRequest!: PaymentRequest | null;

  @Column({ type: 'json' })
  payments!: OrderPayment[];

  /** The authorized payment: named in order.placed and order.placement_failed. */
  @Column({ name: 'payment_id', type: 'varchar', length: LIMITS.idLength, nullable: true })
  paymentId!: string | null;

  @Column({ type: 'json', nullable: true })
  placement!: Placement | null;

  @Column({ type: 'json', nullable: true })
  failure!: Failure | null;

  /** The fiscal receipt exactly as the POS reported it. */
  @Column({ type: 'text', nullable: true })
  receipt!: string | null;

  @Column({ type: 'json' })
  timeline!: TimelineEntry[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'ready_at', type: 'timestamptz', nullable: true })
  readyAt!: Date | null;

  @Column({ name: 'finalized_at', type: 'timestamptz', nullable: true })
  finalizedAt!: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
