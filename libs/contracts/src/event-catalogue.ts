/**
 * Every event type on the bus, by its explicit wire name. Names are never derived from
 * class names: the spec's `order.ready_to_be_placed_in_pos` is the model.
 */
export const EventTypes = {
  // Orders (the order/payment saga of docs/architecture.md)
  BasketCheckedOut: 'basket.checked_out',
  OrderReadyToBePlacedInPos: 'order.ready_to_be_placed_in_pos',
  OrderPlacementStarted: 'order.placement_started',
  OrderPlaced: 'order.placed',
  OrderPlacementFailed: 'order.placement_failed',
  OrderCheckoutFailed: 'order.checkout_failed',
  // Payments
  PaymentOperationRequested: 'payment.operation_requested',
  PaymentRegistered: 'payment.registered',
  PaymentAuthorized: 'payment.authorized',
  PaymentCaptured: 'payment.captured',
  PaymentAnnulled: 'payment.annulled',
  PaymentFailed: 'payment.failed',
  /** Every annulment failed until no retry was left: the reservation may still hold the money. */
  PaymentAnnulmentFailed: 'payment.annulment_failed',
  /** A merchant was created or changed: notifications keeps its signing secret from this. */
  MerchantConfigured: 'payment.merchant_configured',
  // Notifications: a verified partner event, handed to payments
  PartnerEventReceived: 'payment.partner_event_received',
  // Config store
  ConfigUpdated: 'config.updated',
  ExtensionCreated: 'extension.created',
  ExtensionUpdated: 'extension.updated',
  ExtensionDeleted: 'extension.deleted',
  ConnectionCreated: 'connection.created',
  ConnectionUpdated: 'connection.updated',
  ConnectionDeleted: 'connection.deleted',
  // Plugin registry
  PluginCodeUploaded: 'plugin.code_uploaded',
  PluginManifestUploaded: 'plugin.manifest_uploaded',
  PluginConfigUpdated: 'plugin.config_updated',
  // Auth
  ClientCreated: 'auth.client_created',
  ClientRevoked: 'auth.client_revoked',
} as const;

export type EventType = (typeof EventTypes)[keyof typeof EventTypes];

export const PAYMENT_OPERATION_TYPES = [
  'registration',
  'authorization',
  'capture',
  'annulment',
] as const;
export type PaymentOperationType = (typeof PAYMENT_OPERATION_TYPES)[number];

export const PARTNER_EVENT_TYPES = [
  'registration_succeeded',
  'registration_failed',
  'registration_cancelled',
  'authorization_succeeded',
  'authorization_failed',
  'capture_succeeded',
  'capture_failed',
  'annulment_succeeded',
  'annulment_failed',
] as const;
export type PartnerEventType = (typeof PARTNER_EVENT_TYPES)[number];

export interface Money {
  /** Minor units (cents). */
  value: number;
  /** ISO 4217 code. */
  currency: string;
}

export interface BasketCheckedOut {
  orderId: string;
  basketId: string;
  storeId: string;
  total: Money;
  /** Absent when the order is paid outside Comanda (no payment saga). */
  payment?: { merchantId: string; paymentMethod: string };
}

export interface OrderReadyToBePlacedInPos {
  orderId: string;
  storeId: string;
  /** When the guest asked for the order to be ready (ISO 8601). */
  requestedReadyTime?: string;
}

export interface OrderPlacementStarted {
  orderId: string;
  placeOrderSessionId: string;
  expiresAt: string;
}

export interface OrderPlaced {
  orderId: string;
  orderName: string;
  datePlaced: string;
  estimatedReadyTime: string;
  orderRefs: Record<string, string>;
  paymentId?: string;
}

export interface OrderPlacementFailed {
  orderId: string;
  code: string;
  message: string;
  /**
   * `pos` when the integration reported the failure, `timeout` when the session (or the
   * pick-up) deadline passed, `payment` when the order's payment ended before it was placed.
   */
  cause: 'pos' | 'timeout' | 'payment';
  paymentId?: string;
}

export interface OrderCheckoutFailed {
  orderId: string;
  reason: string;
}

export interface PaymentOperationRequested {
  paymentId: string;
  orderId: string;
  operationId: string;
  operationType: PaymentOperationType;
  /** The payment's amount (absent from events of a payments service before 29 November 2026). */
  amount?: Money;
}

export interface PaymentStateChanged {
  paymentId: string;
  orderId: string;
  amount: Money;
}

export interface PaymentFailed extends PaymentStateChanged {
  reason: string;
}

export interface MerchantConfigured {
  merchantId: string;
  /**
   * The secret both directions are signed with, sealed under `COMANDA_SECRETS_KEY` (payments
   * and notifications hold it, nothing else does) and bound to this merchant's announcements
   * (`merchantAnnouncementLabel`): whoever reads the broker learns nothing (ADR 0039).
   */
  signingSecretSealed?: string;
  /**
   * The secret this one replaced, while it is still valid beside it (ADR 0070): sealed as
   * `signingSecretSealed` is, bound to `merchantPreviousAnnouncementLabel`.
   */
  previousSigningSecretSealed?: string;
  /** Until when the previous secret is valid (RFC 3339); present with it. */
  previousSecretValidUntil?: string;
  /**
   * The secret in clear, as payments announced it before ADR 0039. Never sent now; the
   * receiver still takes it from an announcement of an older payments during an upgrade.
   */
  signingSecret?: string;
}

/** What an announced sealed secret is bound to: it opens as this merchant's only. */
export function merchantAnnouncementLabel(merchantId: string): string {
  return `payment.merchant_configured:${merchantId}`;
}

/** What an announced previous secret is bound to: it opens as nothing else. */
export function merchantPreviousAnnouncementLabel(merchantId: string): string {
  return `payment.merchant_configured:${merchantId}:previous`;
}

export interface PartnerEventReceived {
  merchantId: string;
  eventId: string;
  type: PartnerEventType;
  paymentId: string;
  operationId: string;
  occurredAt: string;
  reason?: string;
}

export interface ConfigUpdated {
  entity: string;
  configId: string;
  version: number;
  publisher: string;
  deleted: boolean;
  /**
   * The config's values as saved in this version, so consumers keep their own projection
   * without reading the config store (orders' charge items come from `order-charges`).
   */
  values?: Record<string, unknown>;
}

export interface ExtensionChanged {
  id: string;
  version: string;
  publisher: string;
  availability: string;
}

export interface ConnectionChanged {
  id: string;
  entity: string;
  entityType: string;
  publisher: string;
}

export interface PluginCodeUploaded {
  name: string;
  version: string;
  sha256: string;
  overwritten: boolean;
}

export interface PluginManifestUploaded {
  name: string;
  version: string;
}

export interface PluginConfigUpdated {
  id: string;
  name: string;
  version: string;
}

export interface ClientChanged {
  clientId: string;
  tenantIds: string[];
  environment: 'test' | 'production';
}

/** Payload type of each event type: producers and consumers import the same map. */
export interface EventPayloads {
  'basket.checked_out': BasketCheckedOut;
  'order.ready_to_be_placed_in_pos': OrderReadyToBePlacedInPos;
  'order.placement_started': OrderPlacementStarted;
  'order.placed': OrderPlaced;
  'order.placement_failed': OrderPlacementFailed;
  'order.checkout_failed': OrderCheckoutFailed;
  'payment.operation_requested': PaymentOperationRequested;
  'payment.registered': PaymentStateChanged;
  'payment.authorized': PaymentStateChanged;
  'payment.captured': PaymentStateChanged;
  'payment.annulled': PaymentStateChanged;
  'payment.failed': PaymentFailed;
  'payment.annulment_failed': PaymentFailed;
  'payment.merchant_configured': MerchantConfigured;
  'payment.partner_event_received': PartnerEventReceived;
  'config.updated': ConfigUpdated;
  'extension.created': ExtensionChanged;
  'extension.updated': ExtensionChanged;
  'extension.deleted': ExtensionChanged;
  'connection.created': ConnectionChanged;
  'connection.updated': ConnectionChanged;
  'connection.deleted': ConnectionChanged;
  'plugin.code_uploaded': PluginCodeUploaded;
  'plugin.manifest_uploaded': PluginManifestUploaded;
  'plugin.config_updated': PluginConfigUpdated;
  'auth.client_created': ClientChanged;
  'auth.client_revoked': ClientChanged;
}
