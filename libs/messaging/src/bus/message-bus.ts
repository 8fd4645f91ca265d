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
  /**
   * Resolves when what the handler depends on (its database) answers, rejects otherwise.
   * When a handler fails with an infrastructure error (connection refused or lost, timeout,
   * serialization failure, pool exhausted) the consumer stops taking messages, hands the
   * message back without counting an attempt, and resumes once this resolves.
   */
  probe?: () => Promise<void>;
  /**
   * Keeps a message the consumer gives up on (retries exhausted, or a `NonRetryableError`)
   * durably, in place of the transport's own dead-letter queue; the message is acked only
   * once this resolved. When it fails, the consumer pauses as for an outage.
   */
  deadLetter?: (message: DeliveredMessage, error: string, attempts: number) => Promise<void>;
  /**
   * Keeps a message whose handler failed, to be tried again in `delayMs` (as attempt
   * `message.attempt + 1`), durably, in place of the bus holding it in memory: the message is
   * settled once this resolved, so a failing handler delays nothing but its own message.
   * Whoever implements it runs the retry when it is due (BusServer: a durable timer in the
   * service's schema, docs/adr/0032). When it fails, the consumer pauses as for an outage.
   * Used by the in-process bus; RabbitMQ ignores it: its retry queues are durable already.
   */
  deferRetry?: (message: DeliveredMessage, delayMs: number, error: string) => Promise<void>;
}

/** A consumer's queue as the topology declares it, before any consumer of it runs. */
export interface QueueDeclaration {
  queue: string;
  eventTypes: readonly string[];
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
  /**
   * Declares consumers' queues and bindings ahead of their consumers, so what is published
   * from now on waits in them. After it, a publish of a declared event type that no queue
   * takes is refused (RabbitMQ `mandatory`), never confirmed and dropped.
   */
  declare?(queues: readonly QueueDeclaration[]): Promise<void>;
  /**
   * True when the transport sets `redelivered` on every delivery of a message after its
   * first, also after the consumer's process died holding it (RabbitMQ). A first delivery
   * of a first attempt then needs no delivery count before its handler runs: if the
   * handler ends the process, the redelivery says so. The in-process bus cannot (after a
   * crash the outbox publishes the event afresh), so every delivery is counted there.
   */
  readonly flagsRedeliveries?: boolean;
  /**
   * True when `publish` resolves once the message is queued, and messages published one
   * after another without waiting for those confirms are queued in the order published
   * (RabbitMQ: one confirm channel). The outbox relay then sends an aggregate's events back
   * to back (ADR 0064). The in-process bus resolves once every consumer has handled the
   * message, so events published together would be handled side by side: the relay waits
   * for each there, and an aggregate's events are handled one after another.
   */
  readonly queuesInPublishOrder?: boolean;
  /** True while connected and able to publish. */
  isReady(): boolean;
  close(): Promise<void>;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
