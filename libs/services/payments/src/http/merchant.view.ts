import { ApiProperty } from '@nestjs/swagger';
import type { Merchant } from '../domain/merchant';

/** A merchant as read back: never its secret. */
export class MerchantView {
  @ApiProperty({ maxLength: 64 }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() partnerUrl!: string;
  @ApiProperty({ description: 'Where the partner posts events: `<notificationsUrl>/events`.' })
  notificationsUrl!: string;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;

  static of(merchant: Merchant, publicUrl: string): MerchantView {
    return {
      id: merchant.id,
      name: merchant.name,
      partnerUrl: merchant.partnerUrl,
      notificationsUrl: `${publicUrl.replace(/\/+$/, '')}/notifications/merchants/${encodeURIComponent(merchant.id)}`,
      createdAt: merchant.createdAt.toISOString(),
      updatedAt: merchant.updatedAt.toISOString(),
    };
  }
}
