import { PAYMENT_OPERATION_TYPES } from '@comanda/contracts';
import { PAYMENT_STATES } from '../domain/payment-state-machine';
import { ApiProperty } from '@nestjs/swagger';
import { LISTED_IGNORED_EVENTS } from '../domain/payment';
import type { PaymentDetails } from '../usecases/get-payment/get-payment.usecase';

class MoneyView {
  @ApiProperty({ description: 'Minor units' }) value!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
}

class PaymentOperationView {
  @ApiProperty() operationId!: string;
  @ApiProperty({ enum: PAYMENT_OPERATION_TYPES }) type!: string;
  @ApiProperty({
    enum: ['sending', 'accepted', 'rejected', 'succeeded', 'failed', 'timed_out', 'superseded'],
  })
  status!: string;
  @ApiProperty() sendAttempts!: number;
  @ApiProperty({ nullable: true, type: String }) lastError!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ nullable: true, type: String }) acceptedAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) completedAt!: string | null;
  @ApiProperty() deadlineAt!: string;
}

class PaymentEventView {
  @ApiProperty({ description: 'Partner event type, order event, timeout or `checkout`' })
  trigger!: string;
  @ApiProperty({ nullable: true, type: String }) eventId!: string | null;
  @ApiProperty({ nullable: true, type: String }) operationId!: string | null;
  @ApiProperty({ nullable: true, type: String }) reason!: string | null;
  @ApiProperty({ description: 'False for duplicates and late or out-of-order events' })
  applied!: boolean;
  @ApiProperty() note!: string;
  @ApiProperty() stateBefore!: string;
  @ApiProperty() stateAfter!: string;
  @ApiProperty({ nullable: true, type: String }) occurredAt!: string | null;
  @ApiProperty() recordedAt!: string;
  @ApiProperty({
    description: `This event and the later ignored ones counted on it: a payment lists its first ${LISTED_IGNORED_EVENTS} ignored events, and counts each one after them on the last one listed`,
  })
  repeats!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'When the latest event counted on this one was recorded',
  })
  lastRecordedAt!: string | null;
}

export class PaymentView {
  @ApiProperty() id!: string;
  @ApiProperty() orderId!: string;
  @ApiProperty() merchantId!: string;
  @ApiProperty() paymentMethod!: string;
  @ApiProperty({ type: MoneyView }) amount!: MoneyView;
  @ApiProperty({ enum: PAYMENT_STATES })
  state!: string;
  @ApiProperty({ nullable: true, type: String, description: 'Set once the payment failed' })
  failureReason!: string | null;
  @ApiProperty({ nullable: true, type: String }) reservationExpiresAt!: string | null;
  @ApiProperty() captureFailures!: number;
  @ApiProperty({ description: 'Annulments that failed, were refused or timed out' })
  annulmentFailures!: number;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiProperty({ type: [PaymentOperationView] }) operations!: PaymentOperationView[];
  @ApiProperty({ type: [PaymentEventView] }) events!: PaymentEventView[];

  static of({ payment, operations, events }: PaymentDetails): PaymentView {
    const iso = (date: Date | null) => (date ? date.toISOString() : null);
    return {
      id: payment.id,
      orderId: payment.orderId,
      merchantId: payment.merchantId,
      paymentMethod: payment.paymentMethod,
      amount: payment.amount,
      state: payment.saga.state,
      failureReason: payment.saga.failureReason,
      reservationExpiresAt: iso(payment.saga.reservationExpiresAt),
      captureFailures: payment.saga.captureFailures,
      annulmentFailures: payment.saga.annulmentFailures,
      createdAt: payment.createdAt.toISOString(),
      updatedAt: payment.updatedAt.toISOString(),
      operations: operations.map((operation) => ({
        operationId: operation.id,
        type: operation.type,
        status: operation.status,
        sendAttempts: operation.sendAttempts,
        lastError: operation.lastError,
        createdAt: operation.createdAt.toISOString(),
        acceptedAt: iso(operation.acceptedAt),
        completedAt: iso(operation.completedAt),
        deadlineAt: operation.deadlineAt.toISOString(),
      })),
      events: events.map((event) => ({
        trigger: event.trigger,
        eventId: event.eventId,
        operationId: event.operationId,
        reason: event.reason,
        applied: event.applied,
        note: event.note,
        stateBefore: event.stateBefore,
        stateAfter: event.stateAfter,
        occurredAt: iso(event.occurredAt),
        recordedAt: event.recordedAt.toISOString(),
        repeats: event.repeats,
        lastRecordedAt: iso(event.lastRecordedAt),
      })),
    };
  }
}
