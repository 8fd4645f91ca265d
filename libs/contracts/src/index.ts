export { assertCloudEvent, createCloudEvent, routingKeyOf } from './cloud-event';
export type { CloudEvent, NewEvent } from './cloud-event';
export {
  EventTypes,
  merchantAnnouncementLabel,
  merchantPreviousAnnouncementLabel,
  PARTNER_EVENT_TYPES,
  PAYMENT_OPERATION_TYPES,
} from './event-catalogue';
export type {
  BasketCheckedOut,
  ClientChanged,
  ConfigUpdated,
  ConnectionChanged,
  EventPayloads,
  EventType,
  ExtensionChanged,
  Money,
  OrderCheckoutFailed,
  OrderPlaced,
  OrderPlacementFailed,
  OrderPlacementStarted,
  OrderReadyToBePlacedInPos,
  MerchantConfigured,
  PartnerEventReceived,
  PartnerEventType,
  PaymentFailed,
  PaymentOperationRequested,
  PaymentOperationType,
  PaymentStateChanged,
  PluginCodeUploaded,
  PluginConfigUpdated,
  PluginManifestUploaded,
} from './event-catalogue';
export type { PartnerEventBody, PaymentOperationRequest } from './partner-contract';
export {
  AUTH_BODY_LIMIT_BYTES,
  DEFAULT_BODY_LIMIT_BYTES,
  NOTIFICATIONS_BODY_LIMIT_BYTES,
  SMALLER_SERVICE_BODY_LIMITS,
} from './body-limits';
export { CONSUMER_TOPOLOGY, consumerQueue } from './topology';
export type { ConsumerDeclaration } from './topology';
export {
  MAPPING_DETAILS_LIMITS,
  mappingDetailsProblem,
  ORDER_CHARGE_KEYS,
  ORDER_CHARGE_LIMITS,
  ORDER_CHARGES_ENTITY,
  orderChargeDefinition,
  orderChargesProblems,
} from './order-charges';
export type { MappingDetails, OrderChargeDefinition, OrderChargeKey } from './order-charges';
