import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PARTNER_EVENT_TYPES, PAYMENT_OPERATION_TYPES } from '@comanda/contracts';
import type { AcceptedOperation } from '../usecases/accept-operation.usecase';

const TRANSACTION_STATES = [
  'new',
  'registered',
  'registration_failed',
  'registration_cancelled',
  'aborted',
  'authorized',
  'authorization_failed',
  'captured',
  'annulled',
];
const DELIVERY_STATUSES = [
  'scheduled',
  'delivered',
  'rejected',
  'delivery_failed',
  'aborted',
  'not_sent',
];

/** How the API description shows {@link AcceptedOperation}. */
export class AcceptedOperationView implements AcceptedOperation {
  @ApiProperty() operationId!: string;
  @ApiProperty({ enum: ['accepted'] }) status!: 'accepted';
  @ApiProperty({ description: 'The Idempotency-Key was seen before: nothing ran again' })
  replayed!: boolean;
}

export class SandboxMoneyView {
  @ApiProperty() value!: number;
  @ApiProperty() currency!: string;
}

export class SandboxDeliveryAttemptView {
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty() url!: string;
  @ApiPropertyOptional({ type: 'integer' }) status?: number;
  @ApiPropertyOptional() error?: string;
}

export class SandboxLedgerEventView {
  @ApiProperty() eventId!: string;
  @ApiProperty({ enum: PARTNER_EVENT_TYPES }) type!: string;
  @ApiPropertyOptional() reason?: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ type: [SandboxDeliveryAttemptView] }) attempts!: SandboxDeliveryAttemptView[];
}

export class SandboxOperationView {
  @ApiProperty() operationId!: string;
  @ApiProperty({ enum: PAYMENT_OPERATION_TYPES }) operationType!: string;
  @ApiProperty({ format: 'date-time' }) receivedAt!: string;
  @ApiProperty({ type: 'integer', description: 'Requests answered without running it again' })
  replays!: number;
  @ApiProperty({ enum: TRANSACTION_STATES }) stateBefore!: string;
  @ApiProperty({ enum: TRANSACTION_STATES }) stateAfter!: string;
  @ApiPropertyOptional({ type: SandboxLedgerEventView, description: 'Absent: no event is sent' })
  event?: SandboxLedgerEventView;
}

/** How the API description shows a `SandboxTransaction`: the sandbox's ledger of a payment. */
export class SandboxTransactionView {
  @ApiProperty() paymentId!: string;
  @ApiProperty() merchantId!: string;
  @ApiProperty() orderId!: string;
  @ApiProperty({ type: SandboxMoneyView }) amount!: SandboxMoneyView;
  @ApiProperty() paymentMethod!: string;
  @ApiProperty({ enum: TRANSACTION_STATES }) state!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the partner annulled the transaction on its own side (reservation lapsed)',
  })
  lapsedAt?: string;
  @ApiProperty({ type: [SandboxOperationView] }) operations!: SandboxOperationView[];
}

export class SandboxMerchantView {
  @ApiProperty() merchantId!: string;
  @ApiProperty({ description: 'Where the sandbox sends this merchant its events' })
  notificationsUrl!: string;
}

export class SandboxReceiverFailureView {
  @ApiProperty({ enum: [500] }) status!: number;
  @ApiProperty() detail!: string;
}
