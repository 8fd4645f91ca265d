import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsString,
  MaxLength,
} from 'class-validator';
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from './subscribable-events';

export const SUBSCRIPTION_URL_MAX_LENGTH = 2048;

export class CreateSubscriptionDto {
  @ApiProperty({
    description:
      'Where deliveries are POSTed. A production deployment takes only https URLs whose host resolves to public addresses.',
    maxLength: SUBSCRIPTION_URL_MAX_LENGTH,
    example: 'https://pos.example.com/comanda/events',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(SUBSCRIPTION_URL_MAX_LENGTH)
  url!: string;

  @ApiProperty({
    description: 'The event types to deliver.',
    enum: SUBSCRIBABLE_EVENT_TYPES,
    isArray: true,
    example: ['order.ready_to_be_placed_in_pos'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE_EVENT_TYPES.length)
  @IsIn(SUBSCRIBABLE_EVENT_TYPES, { each: true })
  types!: SubscribableEventType[];
}
