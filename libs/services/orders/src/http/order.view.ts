import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { redactPersonalData, type Principal } from '@comanda/security';
import type { OrderEntity } from '../persistence/order.entity';
import { DiscountDto, GuestDto, ItemView, PaymentRequestDto, TotalsView } from './basket.dto';

/** Where guest personal data sits in every answer that carries a guest. */
export const GUEST_PERSONAL_DATA = ['guest.name', 'guest.email', 'guest.phone', 'guest.address'];

export class StoreDetailsView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() currency!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  mappingDetails!: Record<string, string>;
}

export class OrderPaymentView {
  @ApiProperty() paymentId!: string;
  @ApiProperty({
    enum: [
      'pending',
      'registered',
      'authorized',
      'captured',
      'annulled',
      'failed',
      'annulment_failed',
    ],
    description:
      '`pending`: its registration was requested of the payment partner, which has not confirmed it yet',
  })
  status!: string;
  @ApiProperty({
    type: 'object',
    properties: { value: { type: 'number' }, currency: { type: 'string' } },
  })
  amount!: { value: number; currency: string };
  @ApiPropertyOptional() reason?: string;
  @ApiPropertyOptional({
    description:
      'Captures requested of the payment partner so far: more than one means the earlier ones failed and were retried',
  })
  captureAttempts?: number;
  @ApiProperty() updatedAt!: string;
}

export class OrderView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['awaiting_payment', 'ready', 'placing', 'placed', 'failed'] })
  status!: string;
  @ApiProperty() finalized!: boolean;
  @ApiProperty() basketId!: string;
  @ApiProperty() storeId!: string;
  @ApiProperty({ enum: ['pickup', 'delivery'] }) fulfillment!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) requestedReadyTime!: string | null;
  @ApiProperty({ type: GuestDto, description: 'Redacted without personal-data:read' })
  guest!: GuestDto;
  @ApiProperty({ type: StoreDetailsView }) storeDetails!: StoreDetailsView;
  @ApiProperty({ type: [ItemView], description: 'Menu items, then charge items' })
  items!: ItemView[];
  @ApiProperty({ type: [DiscountDto] }) discounts!: DiscountDto[];
  @ApiProperty({ type: TotalsView }) totals!: TotalsView;
  @ApiPropertyOptional({ type: PaymentRequestDto, nullable: true })
  payment!: PaymentRequestDto | null;
  @ApiProperty({ type: [OrderPaymentView] }) payments!: OrderPaymentView[];
  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  placement!: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      data: { type: 'object', additionalProperties: true },
    },
  })
  failure!: Record<string, unknown> | null;
  @ApiProperty() hasReceipt!: boolean;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  timeline!: Array<Record<string, unknown>>;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class OrdersPageView {
  @ApiProperty({ type: [OrderView] }) items!: OrderView[];
  @ApiPropertyOptional() nextCursor?: string;
}

export class ConfirmationEmailView {
  @ApiProperty() orderId!: string;
  @ApiProperty({ description: 'Redacted without personal-data:read' }) to!: string;
  @ApiProperty() subject!: string;
  @ApiProperty() text!: string;
  @ApiProperty() html!: string;
  @ApiProperty({ enum: ['smtp', 'stored'] }) transport!: string;
  @ApiProperty() createdAt!: string;
}

/** The order as every read answers it; guest personal data only with personal-data:read. */
export function toOrderView(order: OrderEntity, principal: Principal): OrderView {
  const view: OrderView = {
    id: order.id,
    status: order.status,
    finalized: order.finalizedAt !== null,
    basketId: order.basketId,
    storeId: order.storeId,
    fulfillment: order.fulfillment,
    requestedReadyTime: order.requestedReadyTime,
    guest: order.guest,
    storeDetails: order.storeDetails,
    items: order.items,
    discounts: order.discounts,
    totals: order.totals,
    payment: order.paymentRequest,
    payments: order.payments,
    placement: order.placement ? { ...order.placement } : null,
    failure: order.failure ? { ...order.failure } : null,
    hasReceipt: order.receipt !== null,
    timeline: order.timeline.map((entry) => ({ ...entry })),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
  return redactPersonalData(view, principal, GUEST_PERSONAL_DATA);
}

/** `GET /orders/{id}/receipt` in JSON. */
export class ReceiptView {
  @ApiProperty() orderId!: string;
  @ApiProperty({ description: 'The receipt exactly as the POS reported it' }) receipt!: string;
}
