import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A merchant's signing secret as payments announced it (`payment.merchant_configured`).
 * Kept here because the receiver must verify events with it and never reads payments' tables.
 */
@Entity({ name: 'merchant_secrets' })
export class MerchantSecretEntity {
  /** Merchant ids are platform-wide: the partner's URL names no tenant. */
  @PrimaryColumn({ name: 'merchant_id', type: 'text' })
  merchantId!: string;

  /** The tenant that configured the merchant; its events are published for this tenant. */
  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'signing_secret', type: 'text' })
  signingSecret!: string;

  /** `time` of the announcing event: an older announcement delivered late changes nothing. */
  @Column({ name: 'configured_at', type: 'timestamptz' })
  configuredAt!: Date;
}
