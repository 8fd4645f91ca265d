import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, MaxLength, MinLength } from 'class-validator';

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
}
