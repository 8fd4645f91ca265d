import { ApiProperty } from '@nestjs/swagger';
import type { Merchant } from '../domain/merchant';

/** A merchant as read back: never its secret. */
export class MerchantView {
  @ApiProperty({ maxLength: 64 }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() partnerUrl!: string;
  @ApiProperty({ description: 'Where the partner posts events: `<notificationsUrl>/events`.' })
  notificationsUrl!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description:
      'While a secret rollover lasts: until when the replaced secret stays valid beside the new one (`gracePeriodSeconds`); null otherwise.',
  })
  previousSecretValidUntil!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;

  static of(merchant: Merchant, publicUrl: string): MerchantView {
    return {
      id: merchant.id,
      name: merchant.name,
      partnerUrl: merchant.partnerUrl,
      notificationsUrl: `${publicUrl.replace(/\/+$/, '')}/notifications/merchants/${encodeURIComponent(merchant.id)}`,
      previousSecretValidUntil:
        merchant.previousSecretValidUntil && merchant.previousSecretValidUntil > new Date()
          ? merchant.previousSecretValidUntil.toISOString()
          : null,
      createdAt: merchant.createdAt.toISOString(),
      updatedAt: merchant.updatedAt.toISOString(),
    };
  }
}
