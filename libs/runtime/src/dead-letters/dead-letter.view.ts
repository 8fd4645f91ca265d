import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ReplayOutcome } from '@comanda/messaging';

/** How the API description shows a dead letter (`DeadLetterView`). */
export class DeadLetterItemView {
  @ApiProperty({ example: 'orders.42', description: '`<service>.<number>`' }) id!: string;
  @ApiProperty({ description: 'The service that owns it' }) service!: string;
  @ApiProperty() consumer!: string;
  @ApiProperty() eventId!: string;
  @ApiProperty() eventType!: string;
  @ApiProperty({ type: String, nullable: true }) tenantId!: string | null;
  @ApiProperty() subject!: string;
  @ApiProperty({ description: 'Why the handler failed, last attempt' }) error!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) failedAt!: string;
}

/** Dead letters, newest first. */
export class DeadLetterPageView {
  @ApiProperty({ type: [DeadLetterItemView] }) items!: DeadLetterItemView[];
  @ApiPropertyOptional({
    type: [String],
    description: 'Through the gateway: the services whose dead letters could not be read',
  })
  unavailable?: string[];
}

export class DeadLetterReplayView {
  @ApiProperty() id!: string;
  @ApiProperty({
    enum: ['applied', 'already-applied'],
    description: '`already-applied`: the inbox had recorded the event, nothing ran twice',
  })
  outcome!: ReplayOutcome;
}
