import type { EventType } from './event-catalogue';

/**
 * One consumer of events: its durable queue is `<service>.<consumer>`, bound to
 * `eventTypes`, and its inbox key is the same name.
 */
export interface ConsumerDeclaration {
  service: string;
  /** Kebab-case, as in `@OnEvent(type, { consumer })`. */
  consumer: string;
  eventTypes: readonly EventType[];
}

/**
 * Every consumer on the bus, in one place. Every service declares all of these queues and
 * bindings at start, before its outbox relay publishes anything, so an event is never
 * published to an exchange that no queue of its consumer is bound to yet (a staggered start
 * or a restart loses nothing). A service whose `@OnEvent` handlers are not listed here
 * refuses to start, naming the entry to add.
 */
export const CONSUMER_TOPOLOGY: readonly ConsumerDeclaration[] = [
  // Orders: the payment leg of the saga, charge items from configuration, the confirmation
  // e-mail, and webhook deliveries of order events to POS adapters.
  {
    service: 'orders',
    consumer: 'payment-events',
    eventTypes: [
      'payment.operation_requested',
      'payment.registered',
      'payment.authorized',
      'payment.captured',
      'payment.annulled',
      'payment.failed',
      'payment.annulment_failed',
    ],
  },
  { service: 'orders', consumer: 'order-charges', eventTypes: ['config.updated'] },
  { service: 'orders', consumer: 'confirmation-email', eventTypes: ['order.placed'] },
  {
    service: 'orders',
    consumer: 'webhooks',
    eventTypes: [
      'order.ready_to_be_placed_in_pos',
      'order.placement_started',
      'order.placed',
      'order.placement_failed',
      'order.checkout_failed',
    ],
  },
  // Payments: the saga, driven by orders and by partner events the receiver verified.
  { service: 'payments', consumer: 'start-payment', eventTypes: ['basket.checked_out'] },
  { service: 'payments', consumer: 'capture-placed-order', eventTypes: ['order.placed'] },
  {
    service: 'payments',
    consumer: 'annul-unplaced-order',
    eventTypes: ['order.placement_failed'],
  },
  {
    service: 'payments',
    consumer: 'apply-partner-event',
    eventTypes: ['payment.partner_event_received'],
  },
  // Notifications: merchants' signing secrets, to verify partner events.
  {
    service: 'notifications',
    consumer: 'merchant-secrets',
    eventTypes: ['payment.merchant_configured'],
  },
];

/** The durable queue of a consumer. */
export function consumerQueue(declaration: Pick<ConsumerDeclaration, 'service' | 'consumer'>) {
  return `${declaration.service}.${declaration.consumer}`;
}
