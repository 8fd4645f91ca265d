import { type CloudEvent, routingKeyOf } from '@comanda/contracts';
import { Logger } from '@nestjs/common';
import { connect, type ChannelWrapper, type AmqpConnectionManager } from 'amqp-connection-manager';
import type { ConfirmChannel } from 'amqplib';
import type { BusLogger } from '../bus/bus-logger';
import {
  type MessageBus,
  type MessageHeaders,
  type Subscription,
  type SubscriptionHandle,
} from '../bus/message-bus';
import { BusClosedError, PublishFailedError } from '../bus/messaging.errors';
import { describeError } from '../bus/retry-schedule';
import { subscriptionSettings } from '../bus/subscription-settings';
import { CLOUDEVENTS_CONTENT_TYPE, toAmqpHeaders } from './amqp-headers';
import { RabbitMqSubscription } from './rabbitmq-subscription';

export interface RabbitMqBusOptions {
  url: string;
  /** Durable topic exchange every event is published to. */
  exchange?: string;
  /** Prepended to every queue name (test isolation, shared brokers). */
  queuePrefix?: string;
  /** Shown in the broker's management UI. */
  connectionName?: string;
  defaultPrefetch?: number;
  /** How long `publish` waits for the broker's confirm (including while reconnecting). */
  publishTimeoutMs?: number;
  /** Pause between reconnect attempts. */
  reconnectDelayMs?: number;
  heartbeatSeconds?: number;
  logger?: BusLogger;
}

export const DEFAULT_EXCHANGE = 'comanda.events';

/**
 * The MessageBus on RabbitMQ (decisions in docs/adr/0002-messaging-transport.md): one
 * connection that reconnects by itself, a confirm channel for publishing, and a confirm
 * channel per subscription whose topology and consumer are set up again on every reconnect.
 */
export class RabbitMqBus implements MessageBus {
  private readonly connection: AmqpConnectionManager;
  private readonly publisher: ChannelWrapper;
  private readonly subscriptions = new Set<RabbitMqSubscription>();
  private readonly exchange: string;
  private readonly queuePrefix: string;
  private readonly defaultPrefetch: number;
  private readonly publishTimeoutMs: number;
  private readonly logger: BusLogger;
  private closed = false;
  private reportedConnectFailure = false;

  constructor(options: RabbitMqBusOptions) {
    this.exchange = options.exchange ?? DEFAULT_EXCHANGE;
    this.queuePrefix = options.queuePrefix ?? '';
    this.defaultPrefetch = options.defaultPrefetch ?? 16;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
    this.logger = options.logger ?? new Logger(RabbitMqBus.name);
    const where = redactUrl(options.url);

    this.connection = connect([options.url], {
      heartbeatIntervalInSeconds: options.heartbeatSeconds ?? 5,
      reconnectTimeInSeconds: (options.reconnectDelayMs ?? 1_000) / 1_000,
      connectionOptions: options.connectionName
        ? { clientProperties: { connection_name: options.connectionName } }
        : undefined,
    });
    this.connection.on('connect', () => {
      this.reportedConnectFailure = false;
      this.logger.log(`connected to RabbitMQ at ${where}`);
    });
    this.connection.on('disconnect', ({ err }: { err: Error }) => {
      if (!this.closed)
        this.logger.warn(`lost the RabbitMQ connection (${err.message}); reconnecting`);
    });
    this.connection.on('connectFailed', ({ err }: { err: Error }) => {
      if (this.reportedConnectFailure || this.closed) return;
      this.reportedConnectFailure = true;
      this.logger.error(`cannot connect to RabbitMQ at ${where} (${err.message}); retrying`);
    });

    this.publisher = this.connection.createChannel({
      name: 'publisher',
      confirm: true,
      json: false,
      setup: async (channel: ConfirmChannel) => {
        channel.on('error', (error: Error) => this.recoverFromChannelError(error));
        await channel.assertExchange(this.exchange, 'topic', { durable: true });
      },
    });
    this.publisher.on('error', (error: Error) =>
      this.logger.error(`setting up the publisher channel failed: ${error.message}`),
    );
  }

  async publish(event: CloudEvent, headers: MessageHeaders = {}): Promise<void> {
    if (this.closed) throw new BusClosedError();
    const sentAt = Date.parse(event.time);
    try {
      // Resolves on the broker's confirm; rejects on nack, on a closed channel or on timeout.
      await this.publisher.publish(
        this.exchange,
        routingKeyOf(event),
        Buffer.from(JSON.stringify(event)),
        {
          persistent: true,
          contentType: CLOUDEVENTS_CONTENT_TYPE,
          messageId: event.id,
          type: event.type,
          timestamp: Math.floor((Number.isNaN(sentAt) ? Date.now() : sentAt) / 1_000),
          headers: toAmqpHeaders(headers),
          timeout: this.publishTimeoutMs,
        },
      );
    } catch (error) {
      throw new PublishFailedError(event.id, describeError(error), error);
    }
  }

  async subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    if (this.closed) throw new BusClosedError();
    const { retry, prefetch } = subscriptionSettings(subscription, this.defaultPrefetch);
    const consumer = new RabbitMqSubscription({
      connection: this.connection,
      exchange: this.exchange,
      queue: `${this.queuePrefix}${subscription.queue}`,
      subscription,
      prefetch,
      retry,
      logger: this.logger,
      onChannelError: (error) => this.recoverFromChannelError(error),
    });
    this.subscriptions.add(consumer);
    await consumer.ready();
    return {
      cancel: async () => {
        this.subscriptions.delete(consumer);
        await consumer.cancel();
      },
    };
  }

  isReady(): boolean {
    return !this.closed && this.connection.isConnected();
  }

  /** Stops every consumer (waiting for in-flight handlers), then closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((consumer) => consumer.cancel()));
    this.subscriptions.clear();
    await this.publisher.close();
    await this.connection.close();
  }

  private recoverFromChannelError(error: Error): void {
    if (this.closed) return;
    this.logger.error(`RabbitMQ closed a channel: ${error.message}; reconnecting to recover it`);
    this.connection.reconnect();
  }
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable AMQP URL>';
  }
}
