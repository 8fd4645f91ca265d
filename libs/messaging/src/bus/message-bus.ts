import type { CloudEvent } from '@comanda/contracts';

/** Headers that travel with a message beside the envelope (AMQP headers on RabbitMQ). */
export interface MessageHeaders {
  /** The request id of the HTTP request (or message) that caused the event. */
  requestId?: string;
  /** W3C trace context. */
  traceparent?: string;
  tracestate?: string;
}

export interface DeliveredMessage {
  event: CloudEvent;
  headers: MessageHeaders;
  /** 1 on first delivery, incremented by every retry. */
  attempt: number;
  /** True when the broker says it may have delivered this message before. */
  redelivered: boolean;
}

export interface RetryPolicy {
  /** Delay before each retry; its length is the number of retries before dead-lettering. */
  delaysMs: number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { delaysMs: [1_000, 5_000, 30_000] };

export interface Subscription {
  /** Durable queue name, `<app>.<handler>`; competing consumers share it. */
  queue: string;
  /** Event types this queue is bound to (every tenant). */
  eventTypes: string[];
  /**
   * Settles the message: resolving acks it (do this only after the effect committed),
   * throwing sends it to retry with back-off, then to `<queue>.dlq`.
   */
  handler: (message: DeliveredMessage) => Promise<void>;
  prefetch?: number;
  retry?: RetryPolicy;
}

export interface SubscriptionHandle {
  /** Stops taking new messages and waits for the in-flight ones to settle. */
  cancel(): Promise<void>;
}

/** What the outbox relay and the Nest transport need of a broker. */
export interface MessageBus {
  /**
   * Resolves once the broker has taken responsibility for the message (publisher confirm
   * on RabbitMQ); rejects otherwise, so the caller keeps the message and retries.
   */
  publish(event: CloudEvent, headers?: MessageHeaders): Promise<void>;
  subscribe(subscription: Subscription): Promise<SubscriptionHandle>;
  /** True while connected and able to publish. */
  isReady(): boolean;
  close(): Promise<void>;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
