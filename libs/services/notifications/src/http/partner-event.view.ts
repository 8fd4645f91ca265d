import { ApiProperty } from '@nestjs/swagger';

/** The answer to a partner event: stored now, or already stored under the same id. */
export class PartnerEventReceiptView {
  @ApiProperty() eventId!: string;
  @ApiProperty({
    enum: ['stored', 'duplicate'],
    description: '`duplicate`: this event id was stored before, nothing changed',
  })
  status!: 'stored' | 'duplicate';
}
