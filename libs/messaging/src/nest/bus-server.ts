import { randomUUID } from 'node:crypto';
import { childTraceparent, runInService, runWithContext } from '@comanda/context';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { EntityManager } from 'typeorm';
import {
  DEFAULT_RETRY_POLICY,
  type DeliveredMessage,
  type MessageBus,
  type RetryPolicy,
  type SubscriptionHandle,
} from '../bus/message-bus';
import type { ConsumerDeclaration } from '@comanda/contracts';
import { classifyFailure } from '../bus/failure-kind';
import { InvalidSubscriptionError } from '../bus/messaging.errors';
import { describeError, retryDelayAfter } from '../bus/retry-schedule';
import type { DueRetry, RetryRunner } from '../retries/deferred-retries';
import { BusContext } from './bus-context';

export interface BusServerOptions {
  /** The service name, first part of every queue name: `<service>.<consumer>`. */
  service: string;
  /** Concurrent messages per queue (the bus's default when unset). */
  prefetch?: number;
  retry?: RetryPolicy;
  /**
   * The service's inbox. When given, every handler runs inside `handleOnce(queue, event, …)`:
   * a redelivered event is skipped, and the handler's writes commit with the inbox mark.
   */
  inbox?: InboxRunner;
  /**
   * The consumer topology (`CONSUMER_TOPOLOGY` of @comanda/contracts). When given, every
   * consumer of this service must be declared there with exactly its handlers' event types,
   * or the server refuses to start and names the entry to add.
   */
  topology?: readonly ConsumerDeclaration[];
  /**
   * The service's delivery counts and dead letters (`DeadLetterStore`). When given, every
   * delivery is counted before its handler runs, a message delivered more than
   * `maxDeliveries` times without completing (its handling kills the process) is parked, and
   * messages the consumer gives up on are kept there instead of the transport's queue.
   */
  deadLetters?: DeadLetterSink;
  /** Deliveries before a message that never completes is parked (default 10). */
  maxDeliveries?: number;
  /**
   * The service's durable retries (`DeferredRetries`; needs `deadLetters`). When given, a
   * bus without durable retries of its own (in-process) hands a failed message here and
   * settles it at once, so it delays no other message; the retry runs when due through the
   * same handler and inbox, and is parked once the retry policy is used up (docs/adr/0032).
   */
  retries?: RetrySink;
}

/** The part of `DeferredRetries` the server needs. */
export interface RetrySink {
  defer(
    consumer: string,
    message: Pick<DeliveredMessage, 'event' | 'headers' | 'attempt'>,
    delayMs: number,
    error: string,
    within?: EntityManager,
  ): Promise<void>;
  serve(run: RetryRunner): void;
}

/** The part of `DeadLetterStore` the server needs. */
export interface DeadLetterSink {
  countDelivery(
    consumer: string,
    eventId: string,
    redelivered?: boolean,
  ): Promise<{ deliveries: number; lastError: string | null }>;
  countFailedDelivery(consumer: string, eventId: string, error: string): Promise<void>;
  recordError(
    consumer: string,
    eventId: string,
    error: string,
    within?: EntityManager,
  ): Promise<void>;
  forget(consumer: string, eventId: string, within?: EntityManager): Promise<void>;
  park(
    consumer: string,
    message: Pick<DeliveredMessage, 'event' | 'headers'>,
    error: string,
    attempts: number,
    within?: EntityManager,
  ): Promise<void>;
}

/** What a replay did: applied now, or found already applied by the inbox (not applied again). */
export type ReplayOutcome = 'applied' | 'already-applied';

/** The part of `Inbox` the server needs (kept structural so tests may pass their own). */
export interface InboxRunner {
  handleOnce(
    consumer: string,
    event: { id: string },
    effect: (manager: EntityManager) => Promise<void>,
    /** Runs mark and effect in a savepoint of this transaction instead of one of their own. */
    within?: EntityManager,
  ): Promise<boolean>;
  /** Resolves when the inbox's database answers: consumers paused by an outage resume then. */
  ping?(): Promise<void>;
}

export type BusServerStatus = 'connected' | 'disconnected';

/** Stands for this transport in `@EventPattern(pattern, transport)` filters and logs. */
export const BUS_TRANSPORT = Symbol('comanda-bus');

interface ConsumerHandlers {
  queue: string;
  byType: Map<string, MessageHandler>;
  /** Tail of the queue of redelivered messages, which run one at a time. */
  suspects: Promise<void>;
}

/**
 * Nest custom transport over a MessageBus (RabbitMQ or in-process). It closes the holes of
 * the built-in RMQ transport (docs/adr/0002-messaging-transport.md): a message is acked only
 * after its handler completed, prefetch is bounded, a throwing handler goes to retry and
 * then to the dead-letter queue. It does not own the bus: `close()` stops consuming and
 * waits for in-flight handlers; whoever built the bus closes it (after the outbox relay).
 */
export class BusServer
  extends Server<Record<string, never>, BusServerStatus>
  implements CustomTransportStrategy
{
  override transportId = BUS_TRANSPORT;
  private handles: SubscriptionHandle[] = [];
  private registered: ConsumerHandlers[] = [];

  constructor(
    private readonly bus: MessageBus,
    private readonly options: BusServerOptions,
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const { retries, deadLetters } = this.options;
      if (retries && !deadLetters) {
        throw new InvalidSubscriptionError(
          'durable retries need the dead-letter store: an exhausted retry is parked there',
        );
      }
      const consumers = this.consumers();
      if (this.options.topology) this.checkDeclared(consumers, this.options.topology);
      this.registered = consumers;
      for (const consumer of consumers) {
        this.handles.push(
          await this.bus.subscribe({
            queue: consumer.queue,
            eventTypes: [...consumer.byType.keys()],
            prefetch: this.options.prefetch,
            retry: this.options.retry,
            probe: this.options.inbox?.ping?.bind(this.options.inbox),
            deadLetter: this.options.deadLetters
              ? (message, error, attempts) =>
                  (this.options.deadLetters as DeadLetterSink).park(
                    consumer.queue,
                    message,
                    error,
                    attempts,
                  )
              : undefined,
            deferRetry: retries
              ? (message, delayMs, error) => retries.defer(consumer.queue, message, delayMs, error)
              : undefined,
            handler: (message) => this.dispatch(consumer, message),
          }),
        );
      }
      // Retries kept while no consumer listened (a restart) run from now on.
      retries?.serve((retry, tx) => this.runRetry(retry, tx));
      this._status$.next('connected');
      callback();
    } catch (error) {
      await this.close();
      callback(error);
    }
  }

  async close(): Promise<void> {
    const handles = this.handles;
    this.handles = [];
    await Promise.all(handles.map((handle) => handle.cancel()));
    this._status$.next('disconnected');
  }

  /** The bus emits no transport events of its own; watch `status` instead. */
  on(): never {
    throw new Error('BusServer has no transport events; subscribe to its status instead');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /** Groups the registered event handlers by consumer, one queue each. */
  private consumers(): ConsumerHandlers[] {
    const consumers = new Map<string, ConsumerHandlers>();
    for (const [pattern, head] of this.messageHandlers) {
      // Nest chains handlers of one pattern and would run them all from the head; here each
      // belongs to its own queue, so the chain is taken apart.
      const chain: MessageHandler[] = [];
      for (
        let handler: MessageHandler | undefined = head;
        handler;
        handler = handler.next as MessageHandler | undefined
      ) {
        chain.push(handler);
      }
      for (const handler of chain) {
        handler.next = undefined;
        if (!handler.isEventHandler) {
          this.logger.warn(
            `@MessagePattern("${pattern}") is not supported by the event bus and is ignored`,
          );
          continue;
        }
        const consumer: unknown = handler.extras?.['consumer'];
        if (typeof consumer !== 'string' || consumer === '') {
          throw new InvalidSubscriptionError(
            `the handler of "${pattern}" names no consumer: declare it with @OnEvent(type, { consumer })`,
          );
        }
        const queue = `${this.options.service}.${consumer}`;
        let entry = consumers.get(queue);
        if (!entry) {
          entry = { queue, byType: new Map(), suspects: Promise.resolve() };
          consumers.set(queue, entry);
        }
        if (entry.byType.has(pattern)) {
          throw new InvalidSubscriptionError(`consumer ${queue} has two handlers for "${pattern}"`);
        }
        entry.byType.set(pattern, handler);
      }
    }
    return [...consumers.values()];
  }

  private checkDeclared(
    consumers: ConsumerHandlers[],
    topology: readonly ConsumerDeclaration[],
  ): void {
    const { service } = this.options;
    for (const consumer of consumers) {
      const name = consumer.queue.slice(service.length + 1);
      const types = [...consumer.byType.keys()].sort();
      const declared = topology.find((d) => d.service === service && d.consumer === name);
      const entry = `{ service: '${service}', consumer: '${name}', eventTypes: [${types.map((t) => `'${t}'`).join(', ')}] }`;
      if (!declared) {
        throw new InvalidSubscriptionError(
          `consumer ${consumer.queue} is not in the topology: add ${entry} to CONSUMER_TOPOLOGY in libs/contracts/src/topology.ts`,
        );
      }
      const declaredTypes = [...declared.eventTypes].sort();
      if (declaredTypes.join() !== types.join()) {
        throw new InvalidSubscriptionError(
          `consumer ${consumer.queue} handles [${types.join(', ')}] but the topology declares [${declaredTypes.join(', ')}]: change its entry in libs/contracts/src/topology.ts to ${entry}`,
        );
      }
    }
  }

  /**
   * Runs a dead letter of `queue` again through the same handler and the same inbox, so an
   * event already applied is not applied twice. Throws the handler's error when it fails.
   */
  async replay(
    queue: string,
    message: Pick<DeliveredMessage, 'event' | 'headers'>,
  ): Promise<ReplayOutcome> {
    const consumer = this.registered.find((candidate) => candidate.queue === queue);
    if (!consumer) throw new InvalidSubscriptionError(`this service has no consumer ${queue}`);
    await this.options.deadLetters?.forget(queue, message.event.id);
    const applied = await this.handle(consumer, { ...message, attempt: 1, redelivered: true });
    return applied ? 'applied' : 'already-applied';
  }

  private async dispatch(consumer: ConsumerHandlers, message: DeliveredMessage): Promise<void> {
    if (!message.redelivered && message.attempt === 1 && this.bus.flagsRedeliveries) {
      return this.uncounted(consumer, message);
    }
    if (!message.redelivered || !this.options.deadLetters) return this.count(consumer, message);
    // A redelivered message may be the one whose handling ends the process: redeliveries
    // run one at a time, each counted only when its turn comes, so a crash costs only the
    // crashing message a delivery, never the healthy ones redelivered beside it.
    const turn = consumer.suspects.then(() => this.count(consumer, message));
    consumer.suspects = turn.catch(() => undefined);
    return turn;
  }

  private async count(consumer: ConsumerHandlers, message: DeliveredMessage): Promise<void> {
    const store = this.options.deadLetters;
    const { event } = message;
    if (await this.countOrPark(consumer, message)) return;
    try {
      await this.handle(consumer, message);
    } catch (error) {
      if (store && classifyFailure(error) === 'handler') {
        await store
          .recordError(consumer.queue, event.id, describeError(error))
          .catch(() => undefined);
      }
      throw error;
    }
    if (store) await store.forget(consumer.queue, event.id).catch(() => undefined);
  }

  /**
   * The first delivery of a first attempt, on a transport that flags redeliveries: no count
   * before the handler and nothing to forget after it (two statements less per event). If
   * the handler ends the process, the broker redelivers the message flagged and `count`
   * counts both deliveries then; if it fails, the failed delivery is counted now, so a retry
   * finds the same count and last error as when every delivery is counted up front.
   */
  private async uncounted(consumer: ConsumerHandlers, message: DeliveredMessage): Promise<void> {
    const store = this.options.deadLetters;
    try {
      await this.handle(consumer, message);
    } catch (error) {
      if (store && classifyFailure(error) === 'handler') {
        await store
          .countFailedDelivery(consumer.queue, message.event.id, describeError(error))
          .catch(() => undefined);
      }
      throw error;
    }
  }

  /**
   * Counts a delivery before its handler runs, in a statement of its own (a handler that ends
   * the process has used a delivery all the same); once a message was delivered more than
   * `maxDeliveries` times it is parked instead (in `within` when given) and true returned.
   */
  private async countOrPark(
    consumer: ConsumerHandlers,
    message: DeliveredMessage,
    within?: EntityManager,
  ): Promise<boolean> {
    const store = this.options.deadLetters;
    if (!store) return false;
    const { event } = message;
    const { deliveries, lastError } = await store.countDelivery(
      consumer.queue,
      event.id,
      message.redelivered,
    );
    const max = this.options.maxDeliveries ?? 10;
    if (deliveries <= max) return false;
    const reason =
      lastError ??
      `delivered ${deliveries - 1} times without completing: the process ended while handling it`;
    this.logger.error(`${consumer.queue}: parking event ${event.id} (${event.type}): ${reason}`);
    await store.park(consumer.queue, message, reason, deliveries - 1, within);
    return true;
  }

  /**
   * Runs a due retry (docs/adr/0032) in `tx`, the transaction that marks its timer fired. It
   * is counted like any delivery and handled through the inbox in a savepoint of `tx`, so the
   * effect, the inbox mark and the timer's mark commit together, once. When the handler fails
   * the savepoint is rolled back and, in the same transaction, the timer is armed again with
   * the policy's next delay, or the message is parked once the policy is used up (or at once
   * for a `NonRetryableError`). An infrastructure failure is thrown: the whole transaction
   * rolls back, the timer poller gives the attempt back and tries again later.
   */
  private async runRetry(retry: DueRetry, tx: EntityManager): Promise<void> {
    const store = this.options.deadLetters as DeadLetterSink;
    const retries = this.options.retries as RetrySink;
    const { event } = retry;
    const message: DeliveredMessage = {
      event,
      headers: retry.headers ?? {},
      attempt: retry.attempt,
      redelivered: true,
    };
    const consumer = this.registered.find((candidate) => candidate.queue === retry.consumer);
    if (!consumer) {
      // The consumer left the code while its retry waited: kept for an operator to decide.
      const reason = `this service has no consumer ${retry.consumer} any more (last error: ${retry.lastError})`;
      this.logger.error(`${retry.consumer}: parking event ${event.id} (${event.type}): ${reason}`);
      await store.park(retry.consumer, message, reason, retry.attempt - 1, tx);
      return;
    }
    if (await this.countOrPark(consumer, message, tx)) return;
    try {
      await this.handle(consumer, message, tx);
    } catch (error) {
      const kind = classifyFailure(error);
      if (kind === 'infrastructure') throw error;
      const reason = describeError(error);
      const policy = this.options.retry ?? DEFAULT_RETRY_POLICY;
      const delayMs = kind === 'handler' ? retryDelayAfter(policy, message.attempt) : undefined;
      if (delayMs === undefined) {
        this.logger.error(
          `${consumer.queue}: event ${event.id} (${event.type}) dead-lettered after ${message.attempt} attempts: ${reason}`,
        );
        await store.park(consumer.queue, message, reason, message.attempt, tx);
        return;
      }
      this.logger.warn(
        `${consumer.queue}: event ${event.id} failed on attempt ${message.attempt}, retrying in ${delayMs} ms (kept durably): ${reason}`,
      );
      await store.recordError(consumer.queue, event.id, reason, tx);
      await retries.defer(consumer.queue, message, delayMs, reason, tx);
      return;
    }
    await store.forget(consumer.queue, event.id, tx);
  }

  /**
   * Runs the handler of the message's type in the inbox transaction (a savepoint of `within`
   * when given); false when already handled.
   */
  private async handle(
    consumer: ConsumerHandlers,
    message: DeliveredMessage,
    within?: EntityManager,
  ): Promise<boolean> {
    const { event, headers } = message;
    const handler = consumer.byType.get(event.type);
    if (!handler) {
      // The queue is bound to types this process no longer handles (a removed handler).
      throw new Error(`${consumer.queue} has no handler for "${event.type}"`);
    }
    const context = {
      requestId: headers.requestId ?? randomUUID(),
      traceparent: childTraceparent(headers.traceparent),
      tracestate: headers.tracestate,
      tenantId: event.tenantid,
    };
    const run = async (tx?: EntityManager) => {
      const result = handler(event, new BusContext([message, consumer.queue, tx]));
      await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
    };
    const inbox = this.options.inbox;
    // In process, the publisher's scope would otherwise name the service in handler logs.
    return runInService(this.options.service, () =>
      runWithContext(context, async () => {
        if (inbox) return inbox.handleOnce(consumer.queue, event, run, within);
        if (within) await within.transaction(run);
        else await run();
        return true;
      }),
    );
  }
}
