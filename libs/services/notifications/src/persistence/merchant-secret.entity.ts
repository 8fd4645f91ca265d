import { previousSecretLabel, type SealedColumn } from '@comanda/security';
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

  /** Sealed under COMANDA_SECRETS_KEY, bound to the merchant id (ADR 0033): never in clear. */
  @Column({ name: 'signing_secret_sealed', type: 'text' })
  signingSecretSealed!: string;

  /**
   * The secret the merchant's last save replaced, while payments keeps it valid beside the
   * new one (ADR 0070); sealed, bound to `merchantPreviousSecretLabel`. Null when none.
   */
  @Column({ name: 'previous_secret_sealed', type: 'text', nullable: true })
  previousSecretSealed!: string | null;

  /** Until when the previous secret verifies events; null with it. */
  @Column({ name: 'previous_secret_until', type: 'timestamptz', nullable: true })
  previousSecretUntil!: Date | null;

  /** `time` of the announcing event: an older announcement delivered late changes nothing. */
  @Column({ name: 'configured_at', type: 'timestamptz' })
  configuredAt!: Date;
}

/** What a sealed secret is bound to: a value copied to another merchant's row does not open. */
export function merchantSecretLabel(merchantId: string): string {
  return `notifications.merchant_secrets:${merchantId}`;
}

/** The secret the merchant's last save replaced, kept during its grace (ADR 0070). */
export function merchantPreviousSecretLabel(merchantId: string): string {
  return previousSecretLabel(merchantSecretLabel(merchantId));
}

/** The sealed column, for the migration that sealed it and for re-sealing after a key change. */
export function merchantSecretColumn(schema: string): SealedColumn {
  return {
    table: `"${schema}"."merchant_secrets"`,
    key: 'merchant_id',
    sealed: 'signing_secret_sealed',
    label: merchantSecretLabel,
  };
}
