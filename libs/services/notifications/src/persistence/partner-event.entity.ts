import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A verified partner event, once per (merchant, eventId): the receiver's inbox. */
@Entity({ name: 'partner_events' })
export class PartnerEventEntity {
  @PrimaryColumn({ name: 'merchant_id', type: 'text' })
  merchantId!: string;

  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'payment_id', type: 'text' })
  paymentId!: string;

  @Column({ name: 'operation_id', type: 'text' })
  operationId!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** The body exactly as signed, for audits of what the partner said. */
  @Column({ name: 'raw_body', type: 'text' })
  rawBody!: string;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt!: Date;
}
