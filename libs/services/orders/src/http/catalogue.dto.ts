import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotIn,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { CHARGE_ITEM_TYPES } from '../domain/charge-items';
import { LIMITS } from '../domain/limits';
import type { MappingDetails } from '../domain/mapping-details';
import { IsMappingDetails } from './validators';

const MAPPING_DETAILS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Custom key-value pairs, stored and copied into orders exactly as given.',
} as const;

export class StoreInputDto {
  @ApiProperty({ maxLength: LIMITS.titleLength })
  @IsString()
  @Length(1, LIMITS.titleLength)
  name!: string;

  @ApiProperty({ example: 'CHF', description: 'ISO 4217 code' })
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as CHF' })
  currency!: string;

  @ApiProperty(MAPPING_DETAILS_SCHEMA)
  @IsMappingDetails()
  mappingDetails!: MappingDetails;

  @ApiPropertyOptional({ maxLength: LIMITS.idLength })
  @IsOmittable()
  @IsString()
  @Length(1, LIMITS.idLength)
  paymentMerchantId?: string;
}

export class MenuItemDto {
  @ApiProperty({ maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  id!: string;

  @ApiProperty({
    example: 'menuItem',
    maxLength: LIMITS.idLength,
    description: "Any type but the charge items' own (deliveryFee, serviceCharge)",
  })
  @IsString()
  @Length(1, LIMITS.idLength)
  @IsNotIn(Object.values(CHARGE_ITEM_TYPES), {
    message: 'type must not be a charge item type (deliveryFee, serviceCharge)',
  })
  type!: string;

  @ApiProperty({ maxLength: LIMITS.titleLength })
  @IsString()
  @Length(1, LIMITS.titleLength)
  title!: string;

  @ApiProperty({ description: 'Minor units of the store currency' })
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxMinorUnits)
  price!: number;

  @ApiProperty(MAPPING_DETAILS_SCHEMA)
  @IsMappingDetails()
  mappingDetails!: MappingDetails;
}

export class MenuInputDto {
  @ApiProperty({ type: [MenuItemDto], maxItems: LIMITS.menuItems })
  @IsArray()
  @ArrayMaxSize(LIMITS.menuItems)
  @ValidateNested({ each: true })
  @Type(() => MenuItemDto)
  items!: MenuItemDto[];
}

export class StoreView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() currency!: string;
  @ApiProperty(MAPPING_DETAILS_SCHEMA) mappingDetails!: MappingDetails;
  @ApiPropertyOptional({ nullable: true, type: String }) paymentMerchantId!: string | null;
  @ApiProperty() updatedAt!: string;
}

export class MenuView {
  @ApiProperty() storeId!: string;
  @ApiProperty({ type: [MenuItemDto] }) items!: MenuItemDto[];
}
