import { EventTypes, type EventType } from '@comanda/contracts';

/**
 * The events a webhook subscription may name: the order events, none of which carries
 * personal data. Adding one here also needs a handler in `webhook-events.consumer.ts`.
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  EventTypes.OrderReadyToBePlacedInPos,
  EventTypes.OrderPlacementStarted,
  EventTypes.OrderPlaced,
  EventTypes.OrderPlacementFailed,
  EventTypes.OrderCheckoutFailed,
] as const satisfies readonly EventType[];

export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
