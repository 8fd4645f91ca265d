import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { LIMITS } from '../domain/limits';
import type { MappingDetails } from '../domain/mapping-details';
import type { Address } from '../domain/order';
import { IsAddress, IsDateTime, IsDisplayName, IsMappingDetails } from './validators';

export class GuestDto {
  @ApiProperty({ maxLength: LIMITS.guestNameLength })
  @IsString()
  @Length(1, LIMITS.guestNameLength)
  name!: string;

  @ApiProperty({ maxLength: LIMITS.emailLength })
  @IsEmail()
  @MaxLength(LIMITS.emailLength)
  email!: string;

  @ApiProperty({ maxLength: LIMITS.phoneLength })
  @IsString()
  @Length(1, LIMITS.phoneLength)
  phone!: string;

  @ApiPropertyOptional({
    description: 'Required for delivery: a string or {street, city, postalCode, country}',
    oneOf: [
      { type: 'string' },
      {
        type: 'object',
        properties: {
          street: { type: 'string' },
          city: { type: 'string' },
          postalCode: { type: 'string' },
          country: { type: 'string' },
        },
      },
    ],
  })
  @IsOmittable()
  @IsAddress()
  address?: Address;
}

export class PaymentRequestDto {
  @ApiProperty({ maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  merchantId!: string;

  @ApiProperty({ maxLength: LIMITS.paymentMethodLength, example: 'card' })
  @IsString()
  @Length(1, LIMITS.paymentMethodLength)
  // Sent to the payment partner as it is: a blank one would fail there, after the checkout.
  @IsDisplayName()
  paymentMethod!: string;
}

export class CreateBasketDto {
  @ApiProperty({ maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  storeId!: string;

  @ApiProperty({ enum: ['pickup', 'delivery'] })
  @IsIn(['pickup', 'delivery'])
  fulfillment!: 'pickup' | 'delivery';

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOmittable()
  @IsDateTime()
  requestedReadyTime?: string;

  @ApiProperty({ type: GuestDto })
  // ValidateNested alone lets an array through (it checks each element: none in []).
  @IsObject()
  @ValidateNested()
  @Type(() => GuestDto)
  guest!: GuestDto;

  @ApiPropertyOptional({ type: PaymentRequestDto })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentRequestDto)
  payment?: PaymentRequestDto;
}

export class AddItemDto {
  @ApiProperty({ maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  menuItemId!: string;

  @ApiProperty({ minimum: 1, maximum: LIMITS.quantity })
  @IsInt()
  @Min(1)
  @Max(LIMITS.quantity)
  quantity!: number;
}

export class DiscountAmountDto {
  @ApiProperty({
    description: 'A basket line id (or a charge item id)',
    maxLength: LIMITS.idLength,
  })
  @IsString()
  @Length(1, LIMITS.idLength)
  itemId!: string;

  @ApiProperty({ description: 'One of the units of that item', maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  unitId!: string;

  @ApiProperty({ description: 'Minor units', minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxMinorUnits)
  value!: number;
}

export class DiscountDto {
  @ApiProperty({ maxLength: LIMITS.idLength })
  @IsString()
  @Length(1, LIMITS.idLength)
  id!: string;

  @ApiProperty({ maxLength: LIMITS.titleLength })
  @IsString()
  @Length(1, LIMITS.titleLength)
  title!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  @IsMappingDetails()
  mappingDetails!: MappingDetails;

  @ApiProperty({ type: [DiscountAmountDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.discountAmounts)
  @ValidateNested({ each: true })
  @Type(() => DiscountAmountDto)
  amounts!: DiscountAmountDto[];
}

export class UnitView {
  @ApiProperty() id!: string;
}

export class ItemView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'The menu item type, or deliveryFee / serviceCharge' }) type!: string;
  @ApiPropertyOptional() menuItemId?: string;
  @ApiProperty() title!: string;
  @ApiProperty() quantity!: number;
  @ApiProperty() unitPrice!: number;
  @ApiProperty({ type: [UnitView] }) units!: UnitView[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  mappingDetails!: MappingDetails;
}

export class TotalsView {
  @ApiProperty() currency!: string;
  @ApiProperty() items!: number;
  @ApiProperty() charges!: number;
  @ApiProperty() discounts!: number;
  @ApiProperty() total!: number;
}

export class BasketView {
  @ApiProperty() id!: string;
  @ApiProperty() storeId!: string;
  @ApiProperty({ enum: ['pickup', 'delivery'] }) fulfillment!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) requestedReadyTime!: string | null;
  @ApiProperty({ type: GuestDto, description: 'Redacted without personal-data:read' })
  guest!: GuestDto;
  @ApiPropertyOptional({ type: PaymentRequestDto, nullable: true })
  payment!: PaymentRequestDto | null;
  @ApiProperty({ type: [ItemView], description: 'Menu lines' }) lines!: ItemView[];
  @ApiProperty({ type: [ItemView] }) chargeItems!: ItemView[];
  @ApiProperty({ type: [DiscountDto] }) discounts!: DiscountDto[];
  @ApiProperty({ type: TotalsView }) totals!: TotalsView;
  @ApiPropertyOptional({ nullable: true, type: String }) orderId!: string | null;
  @ApiProperty() createdAt!: string;
}

export class CheckoutAnswerView {
  @ApiProperty() orderId!: string;
  @ApiProperty({ enum: ['ready', 'awaiting_payment'] }) status!: string;
}
