import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsOmittable } from '@comanda/http';

/** The longest grace a rollover may ask for: as for client secrets (ADR 0005). */
export const MAX_SECRET_GRACE_SECONDS = 30 * 24 * 3600;

export class MerchantInputDto {
  @ApiProperty({ maxLength: 200, example: 'Trattoria Roma online payments' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({
    maxLength: 2048,
    description:
      'Where operations are posted. Production: https and a public address only, checked on save and at every connection.',
    example: 'https://partner.example.com/payments',
  })
  @IsString()
  @Length(1, 2048)
  partnerUrl!: string;

  @ApiProperty({
    minLength: 16,
    maxLength: 512,
    writeOnly: true,
    description: 'Signs operations and verifies partner events (its UTF-8 bytes); never returned.',
  })
  @IsString()
  @MinLength(16)
  @MaxLength(512)
  signingSecret!: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_SECRET_GRACE_SECONDS,
    default: 0,
    description:
      'When this save changes the secret: how long the replaced one stays valid beside it (ADR 0070). Operations are signed with both, and partner events signed with either are taken, until the partner has the new one. Ignored when the secret does not change.',
  })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(MAX_SECRET_GRACE_SECONDS)
  gracePeriodSeconds?: number;
}
