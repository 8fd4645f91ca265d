import { assertCloudEvent, type CloudEvent } from '@comanda/contracts';
import { Logger } from '@nestjs/common';
import type { BusLogger } from '../bus/bus-logger';
import {
  type DeliveredMessage,
  type MessageBus,
  type MessageHeaders,
  type QueueDeclaration,
  type RetryPolicy,
  type Subscription,
  type SubscriptionHandle,
} from '../bus/message-bus';
import { BusClosedError } from '../bus/messaging.errors';
import { classifyFailure } from '../bus/failure-kind';
import { OutagePause } from '../bus/outage-pause';
import { describeError, retryDelayAfter } from '../bus/retry-schedule';
import { subscriptionSettings } from '../bus/subscription-settings';

/** A message that exhausted its retries, kept for inspection. */
export interface DeadLetter {
  queue: string;
  event: CloudEvent;
  headers: MessageHeaders;
  /** Message of the last error (or why the message is not a valid CloudEvent). */
  error: string;
  attempts: number;
  failedAt: Date;
}

export interface InProcessBusOptions {
  defaultPrefetch?: number;
  onDeadLetter?: (deadLetter: DeadLetter) => void;
  logger?: BusLogger;
}

interface Delivery {
  event: CloudEvent;
  headers: MessageHeaders;
  attempt: number;
  settle: () => void;
}

interface Consumer {
  handler: Subscription['handler'];
  prefetch: number;
  retry: RetryPolicy;
  running: number;
  cancelled: boolean;
  /** Holds the consumer's queue while its database is down. */
  outage: OutagePause;
  keepDeadLetter?: Subscription['deadLetter'];
  deferRetry?: Subscription['deferRetry'];
  idle: Array<() => void>;
}

interface Queue {
  name: string;
  eventTypes: Set<string>;
  consumers: Consumer[];
  pending: Delivery[];
  /** Round-robin position among competing consumers. */
  next: number;
  deadLetters: DeadLetter[];
}

/**
 * The MessageBus of standalone mode: one Node process, no broker, the same semantics as
 * RabbitMqBus (see docs/adr/0002-messaging-transport.md). Durability comes from the outbox:
 * `publish` resolves only once every bound queue has settled the message (handled, or its
 * retry or dead letter durably kept by the subscription's `deferRetry` / `deadLetter`), so
 * an event the process dies with is still unpublished in the outbox and is sent again at
 * the next start. A failing handler delays only its own message (docs/adr/0032): its retry
 * goes to `deferRetry` and the publish settles, so the relay moves on. Without that hook a
 * retry waits in memory, and the publish with it.
 */
export class InProcessBus implements MessageBus {
  private readonly queues = new Map<string, Queue>();
  private readonly retryTimers = new Map<NodeJS.Timeout, Delivery>();
  private readonly unsettled = new Map<Delivery, (error: Error) => void>();
  private readonly defaultPrefetch: number;
  private readonly logger: BusLogger;
  private closed = false;

  constructor(private readonly options: InProcessBusOptions = {}) {
    this.defaultPrefetch = options.defaultPrefetch ?? 16;
    this.logger = options.logger ?? new Logger(InProcessBus.name);
  }

  async publish(event: CloudEvent, headers: MessageHeaders = {}): Promise<void> {
    if (this.closed) throw new BusClosedError();
    assertCloudEvent(event);
    const targets = [...this.queues.values()].filter((queue) => queue.eventTypes.has(event.type));
    // Each queue gets its own copy, as if it had crossed the wire.
    const body = JSON.stringify(event);
    await Promise.all(
      targets.map(
        (queue) =>
          new Promise<void>((resolve, reject) => {
            const delivery: Delivery = {
              event: JSON.parse(body) as CloudEvent,
              headers: { ...headers },
              attempt: 1,
              settle: () => {
                this.unsettled.delete(delivery);
                resolve();
              },
            };
            this.unsettled.set(delivery, reject);
            queue.pending.push(delivery);
            this.pump(queue);
          }),
      ),
    );
  }

  async subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    if (this.closed) throw new BusClosedError();
    const { retry, prefetch } = subscriptionSettings(subscription, this.defaultPrefetch);
    const queue = this.queueNamed(subscription.queue);
    for (const eventType of subscription.eventTypes) queue.eventTypes.add(eventType);
    const consumer: Consumer = {
      handler: subscription.handler,
      prefetch,
      retry,
      running: 0,
      cancelled: false,
      outage: new OutagePause(subscription.probe),
      keepDeadLetter: subscription.deadLetter,
      deferRetry: subscription.deferRetry,
      idle: [],
    };
    queue.consumers.push(consumer);
    this.pump(queue);
    return { cancel: () => this.cancel(queue, consumer) };
  }

  /** Creates the queues now: what is published to them waits there for their consumers. */
  async declare(queues: readonly QueueDeclaration[]): Promise<void> {
    if (this.closed) throw new BusClosedError();
    for (const declaration of queues) {
      const queue = this.queueNamed(declaration.queue);
      for (const eventType of declaration.eventTypes) queue.eventTypes.add(eventType);
    }
  }

  isReady(): boolean {
    return !this.closed;
  }

  /** Dead letters of a queue, oldest first. */
  deadLetters(queue: string): readonly DeadLetter[] {
    return this.queues.get(queue)?.deadLetters ?? [];
  }

  /**
   * Stops consuming and waits for running handlers. Messages not yet settled stay
   * unpublished for their publisher (its publish rejects), so the outbox sends them again.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.retryTimers.keys()) clearTimeout(timer);
    this.retryTimers.clear();
    await Promise.all(
      [...this.queues.values()].flatMap((queue) =>
        queue.consumers.map((consumer) => this.cancel(queue, consumer)),
      ),
    );
    for (const reject of this.unsettled.values()) reject(new BusClosedError());
    this.unsettled.clear();
    for (const queue of this.queues.values()) queue.pending.length = 0;
  }

  private queueNamed(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = { name, eventTypes: new Set(), consumers: [], pending: [], next: 0, deadLetters: [] };
      this.queues.set(name, queue);
    }
    return queue;
  }

  private async cancel(queue: Queue, consumer: Consumer): Promise<void> {
    consumer.cancelled = true;
    consumer.outage.stop();
    queue.consumers = queue.consumers.filter((candidate) => candidate !== consumer);
    if (consumer.running > 0) {
      await new Promise<void>((resolve) => consumer.idle.push(resolve));
    }
  }

  /** Hands pending messages to consumers with free capacity, round robin. */
  private pump(queue: Queue): void {
    while (queue.pending.length > 0 && !this.closed) {
      const consumer = this.nextFreeConsumer(queue);
      if (!consumer) return;
      const delivery = queue.pending.shift() as Delivery;
      consumer.running++;
      // Never run a handler inside the publisher's call stack.
      setImmediate(() => void this.deliver(queue, consumer, delivery));
    }
  }

  private nextFreeConsumer(queue: Queue): Consumer | undefined {
    // While any consumer of the queue waits out an outage, the queue holds its messages.
    if (queue.consumers.some((consumer) => consumer.outage.paused)) return undefined;
    const count = queue.consumers.length;
    for (let step = 0; step < count; step++) {
      const index = (queue.next + step) % count;
      const consumer = queue.consumers[index];
      if (consumer.running < consumer.prefetch) {
        queue.next = (index + 1) % count;
        return consumer;
      }
    }
    return undefined;
  }

  private messageOf(delivery: Delivery): DeliveredMessage {
    return {
      event: delivery.event,
      headers: delivery.headers,
      attempt: delivery.attempt,
      redelivered: delivery.attempt > 1,
    };
  }

  private async deliver(queue: Queue, consumer: Consumer, delivery: Delivery): Promise<void> {
    try {
      await consumer.handler(this.messageOf(delivery));
      delivery.settle();
    } catch (error) {
      const kind = classifyFailure(error);
      if (kind === 'infrastructure') this.hold(queue, consumer, delivery, error);
      else if (kind === 'non-retryable') this.deadLetter(queue, consumer, delivery, error);
      else this.retryOrDeadLetter(queue, consumer, delivery, error);
    } finally {
      consumer.running--;
      if (consumer.running === 0) consumer.idle.splice(0).forEach((resolve) => resolve());
      this.pump(queue);
    }
  }

  /**
   * The handler's infrastructure is down: the message goes back to the head of its queue
   * with the same attempt number, and the queue waits until the consumer's probe answers.
   */
  private hold(queue: Queue, consumer: Consumer, delivery: Delivery, error: unknown): void {
    if (this.closed) return;
    queue.pending.unshift(delivery);
    if (consumer.outage.paused) return;
    this.logger.warn(
      `${queue.name}: pausing while the infrastructure is unavailable (${describeError(error)}); event ${delivery.event.id} waits, no attempt counted`,
    );
    void consumer.outage.begin().then(() => {
      if (consumer.cancelled || this.closed) return;
      this.logger.log(`${queue.name}: infrastructure answers again, resuming`);
      this.pump(queue);
    });
  }

  private retryOrDeadLetter(
    queue: Queue,
    consumer: Consumer,
    delivery: Delivery,
    error: unknown,
  ): void {
    // Closing rejects the publish instead: the outbox keeps the event and sends it again.
    if (this.closed) return;
    const delayMs = retryDelayAfter(consumer.retry, delivery.attempt);
    if (delayMs === undefined) {
      this.deadLetter(queue, consumer, delivery, error);
      return;
    }
    const defer = consumer.deferRetry;
    if (defer) {
      // Kept durably by the service (a retry timer in its schema), which runs it when due;
      // settled once it is written, so nothing else waits for this message's back-off.
      defer(this.messageOf(delivery), delayMs, describeError(error)).then(
        () => {
          this.logger.warn(
            `${queue.name}: event ${delivery.event.id} failed on attempt ${delivery.attempt}, retrying in ${delayMs} ms (kept durably): ${describeError(error)}`,
          );
          delivery.settle();
        },
        (deferError: unknown) => this.hold(queue, consumer, delivery, deferError),
      );
      return;
    }
    this.logger.warn(
      `${queue.name}: event ${delivery.event.id} failed on attempt ${delivery.attempt}, retrying in ${delayMs} ms: ${describeError(error)}`,
    );
    // Transport-level back-off only: the outbox still holds the event until it settles.
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      queue.pending.push({ ...delivery, attempt: delivery.attempt + 1 });
      this.pump(queue);
    }, delayMs);
    this.retryTimers.set(timer, delivery);
  }

  private deadLetter(queue: Queue, consumer: Consumer, delivery: Delivery, error: unknown): void {
    const keep = consumer.keepDeadLetter;
    if (keep) {
      // Kept durably by the service (its dead_letters table); settled once it is written.
      keep(this.messageOf(delivery), describeError(error), delivery.attempt).then(
        () => {
          this.logger.error(
            `${queue.name}: event ${delivery.event.id} (${delivery.event.type}) dead-lettered after ${delivery.attempt} attempts: ${describeError(error)}`,
          );
          delivery.settle();
        },
        (keepError: unknown) => this.hold(queue, consumer, delivery, keepError),
      );
      return;
    }
    const deadLetter: DeadLetter = {
      queue: queue.name,
      event: delivery.event,
      headers: delivery.headers,
      error: describeError(error),
      attempts: delivery.attempt,
      failedAt: new Date(),
    };
    queue.deadLetters.push(deadLetter);
    this.logger.error(
      `${queue.name}: event ${delivery.event.id} (${delivery.event.type}) dead-lettered after ${delivery.attempt} attempts: ${deadLetter.error}`,
      error instanceof Error ? error.stack : undefined,
    );
    delivery.settle();
    try {
      this.options.onDeadLetter?.(deadLetter);
    } catch (callbackError) {
      this.logger.error(`onDeadLetter callback failed: ${describeError(callbackError)}`);
    }
  }
}
