import type { Money, PartnerEventType, PaymentOperationType } from './event-catalogue';

/**
 * The HTTP contract with payment partners (ARCHITECTURE.md), shared by whoever sends or
 * receives it: payments, the notification receiver, the partner sandbox and the kit.
 */

/** `POST {partnerUrl}` body: one operation, byte for byte the same on every retry. */
export interface PaymentOperationRequest {
  operationId: string;
  operationType: PaymentOperationType;
  paymentId: string;
  orderId: string;
  merchantId: string;
  /** `value` in minor units: the order's total; `currency` the store's. */
  amount: Money;
  paymentMethod: string;
}

/** `POST {notificationsUrl}/events` body: the completion event of one operation. */
export interface PartnerEventBody {
  eventId: string;
  type: PartnerEventType;
  paymentId: string;
  operationId: string;
  occurredAt: string;
  reason?: string;
}
