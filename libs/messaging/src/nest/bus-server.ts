import { randomUUID } from 'node:crypto';
import { childTraceparent, runWithContext } from '@comanda/context';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type {
  DeliveredMessage,
  MessageBus,
  RetryPolicy,
  SubscriptionHandle,
} from '../bus/message-bus';
import { InvalidSubscriptionError } from '../bus/messaging.errors';
import { BusContext } from './bus-context';

export interface BusServerOptions {
  /** The service name, first part of every queue name: `<service>.<consumer>`. */
  service: string;
  /** Concurrent messages per queue (the bus's default when unset). */
  prefetch?: number;
  retry?: RetryPolicy;
}

export type BusServerStatus = 'connected' | 'disconnected';

/** Stands for this transport in `@EventPattern(pattern, transport)` filters and logs. */
export const BUS_TRANSPORT = Symbol('comanda-bus');

interface ConsumerHandlers {
  queue: string;
  byType: Map<string, MessageHandler>;
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

  constructor(
    private readonly bus: MessageBus,
    private readonly options: BusServerOptions,
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const consumer of this.consumers()) {
        this.handles.push(
          await this.bus.subscribe({
            queue: consumer.queue,
            eventTypes: [...consumer.byType.keys()],
            prefetch: this.options.prefetch,
            retry: this.options.retry,
            handler: (message) => this.dispatch(consumer, message),
          }),
        );
      }
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
            `the handler of "${pattern}" names no consumer: declare it with @OnEvent(type, consumer)`,
          );
        }
        const queue = `${this.options.service}.${consumer}`;
        let entry = consumers.get(queue);
        if (!entry) {
          entry = { queue, byType: new Map() };
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

  private async dispatch(consumer: ConsumerHandlers, message: DeliveredMessage): Promise<void> {
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
    await runWithContext(context, async () => {
      const result = handler(event, new BusContext([message, consumer.queue]));
      await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
    });
  }
}
