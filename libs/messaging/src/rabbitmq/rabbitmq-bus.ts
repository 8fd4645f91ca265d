import { type CloudEvent, routingKeyOf } from '@comanda/contracts';
import { Logger } from '@nestjs/common';
import { connect, type ChannelWrapper, type AmqpConnectionManager } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { currentService } from '@comanda/context';
import { loggerOf, type BusLogger } from '../bus/bus-logger';
import {
  DEFAULT_RETRY_POLICY,
  type MessageBus,
  type MessageHeaders,
  type QueueDeclaration,
  type Subscription,
  type SubscriptionHandle,
} from '../bus/message-bus';
import { BrokerRefusedError, BusClosedError, PublishFailedError } from '../bus/messaging.errors';
import { forgetBroker, noteBrokerDown, noteBrokerUp } from '../broker-trouble';
import { describeError } from '../bus/retry-schedule';
import { subscriptionSettings } from '../bus/subscription-settings';
import { CLOUDEVENTS_CONTENT_TYPE, toAmqpHeaders } from './amqp-headers';
import { declareQueue } from './declare-queue';
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
  /** How long `close` may take before it gives up on a clean close (default 10 s). */
  closeTimeoutMs?: number;
  /**
   * How often a connected bus declares its whole topology again (default 60 s; 0: never),
   * restoring a queue or binding removed while the exchange and the connection stay.
   */
  topologyRefreshMs?: number;
  logger?: BusLogger;
}

export const DEFAULT_EXCHANGE = 'comanda.events';

/**
 * The MessageBus on RabbitMQ (decisions in docs/adr/0002-messaging-transport.md): one
 * connection that reconnects by itself, a confirm channel for publishing, and a confirm
 * channel per subscription whose topology and consumer are set up again on every reconnect.
 */
export class RabbitMqBus implements MessageBus {
  /** The broker flags a redelivery, also of a message whose consumer's process died. */
  readonly flagsRedeliveries = true;
  readonly queuesInPublishOrder = true;
  private readonly connection: AmqpConnectionManager;
  private readonly publisher: ChannelWrapper;
  private readonly subscriptions = new Set<RabbitMqSubscription>();
  private readonly exchange: string;
  private readonly queuePrefix: string;
  private readonly defaultPrefetch: number;
  private readonly publishTimeoutMs: number;
  private readonly closeTimeoutMs: number;
  private readonly logger: BusLogger;
  private readonly baseLogger: BusLogger;
  /** The service (or `platform`) whose work opened the connection. */
  private readonly owner: string | undefined;
  /** Event types some declared or subscribed queue takes: published `mandatory`. */
  private readonly routedTypes = new Set<string>();
  /** Every queue `declare` set up: set up again by the publisher channel on each reconnect. */
  private readonly topology: QueueDeclaration[] = [];
  /** Message ids the broker returned as unroutable, until their confirm is seen. */
  private readonly returned = new Set<string>();
  private closed = false;
  private reportedConnectFailure = false;
  /** Rejects when the broker refuses the login or the virtual host (never resolves). */
  private readonly refused: Promise<never>;
  /** Until the first connection, a refusal is the start's to report (its one line). */
  private everConnected = false;
  private readonly topologyRefresh: NodeJS.Timeout | undefined;
  private refreshing = false;

  constructor(options: RabbitMqBusOptions) {
    this.exchange = options.exchange ?? DEFAULT_EXCHANGE;
    this.queuePrefix = options.queuePrefix ?? '';
    this.defaultPrefetch = options.defaultPrefetch ?? 16;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
    // The connection's lines belong to the work that opened it: a service run alone, or the
    // standalone platform (which opens it as `platform`).
    this.baseLogger = options.logger ?? new Logger(RabbitMqBus.name);
    this.owner = currentService();
    this.logger = loggerOf(this.baseLogger, this.owner);
    const where = redactUrl(options.url);

    this.connection = connect([options.url], {
      heartbeatIntervalInSeconds: options.heartbeatSeconds ?? 5,
      reconnectTimeInSeconds: (options.reconnectDelayMs ?? 1_000) / 1_000,
      connectionOptions: {
        // Without TCP_NODELAY a publish written after an ack (which the broker never answers)
        // waits for the broker's delayed TCP ack, about 40 ms on Linux (Nagle's algorithm).
        noDelay: true,
        ...(options.connectionName
          ? { clientProperties: { connection_name: options.connectionName } }
          : {}),
      },
    });
    this.connection.on('connect', () => {
      noteBrokerUp(this);
      this.everConnected = true;
      this.reportedConnectFailure = false;
      this.logger.log(`connected to RabbitMQ at ${where}`);
    });
    this.connection.on('disconnect', ({ err }: { err: Error }) => {
      if (this.closed) return;
      noteBrokerDown(this);
      this.logger.warn(`lost the RabbitMQ connection (${err.message}); reconnecting`);
    });
    let refuse: (error: BrokerRefusedError) => void = () => undefined;
    this.refused = new Promise<never>((_resolve, reject) => {
      refuse = reject;
    });
    this.refused.catch(() => undefined); // only a start waiting for the broker reads it
    this.connection.on('connectFailed', ({ err }: { err: Error }) => {
      if (!this.closed) noteBrokerDown(this);
      const refusal = refusalReason(err);
      if (refusal) refuse(new BrokerRefusedError(where, refusal));
      // A start waiting for the broker fails with the refusal, which is its one line.
      if (refusal && !this.everConnected) return;
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
        // basic.return arrives before the confirm of the same message on this channel.
        channel.on('return', (message: ConsumeMessage) => {
          const id = message.properties.messageId;
          if (typeof id === 'string') this.returned.add(id);
        });
        await channel.assertExchange(this.exchange, 'topic', { durable: true });
        // Set up again after each reconnect: the topology too, so that an exchange deleted
        // under the running services (the publish that found it gone closed this channel)
        // gets every consumer's bindings back before the next publish, not only those of
        // the services whose own channels failed. Otherwise an event that still reached one
        // queue would be confirmed while another consumer's copy was lost.
        for (const declaration of this.topology) await this.declareOn(channel, declaration);
      },
    });
    this.publisher.on('error', (error: Error) =>
      this.logger.error(`setting up the publisher channel failed: ${error.message}`),
    );
    const refreshMs = options.topologyRefreshMs ?? 60_000;
    if (refreshMs > 0) {
      this.topologyRefresh = setInterval(() => void this.refreshTopology(refreshMs), refreshMs);
      this.topologyRefresh.unref();
    }
  }

  /**
   * Declares every declared queue and binding again on a channel of its own. A binding
   * removed while the exchange stays (a definitions sync, an operator) fails no channel, so
   * nothing else would set it up again, and an event that still reaches another queue is
   * confirmed while this consumer's copy is lost: the loss lasts at most one interval.
   */
  private async refreshTopology(intervalMs: number): Promise<void> {
    const connection = this.connection.connection;
    if (this.closed || this.refreshing || !connection || this.topology.length === 0) return;
    this.refreshing = true;
    try {
      const channel = await connection.createConfirmChannel();
      // A refused declare closes the channel and rejects below; this only keeps the channel's
      // own error event from going unheard.
      channel.on('error', () => undefined);
      try {
        for (const declaration of this.topology) await this.declareOn(channel, declaration);
      } finally {
        await channel.close().catch(() => undefined);
      }
    } catch (error) {
      if (!this.closed) {
        this.logger.warn(
          `declaring the topology again failed (${describeError(error)}); trying again in ${intervalMs / 1_000} s`,
        );
      }
    } finally {
      this.refreshing = false;
    }
  }

  async publish(event: CloudEvent, headers: MessageHeaders = {}): Promise<void> {
    if (this.closed) throw new BusClosedError();
    const sentAt = Date.parse(event.time);
    const mandatory = this.routedTypes.has(event.type);
    this.returned.delete(event.id);
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
          mandatory,
          timeout: this.publishTimeoutMs,
        },
      );
    } catch (error) {
      throw new PublishFailedError(event.id, describeError(error), error);
    }
    if (this.returned.delete(event.id)) {
      // Confirmed but dropped: its consumer's queue is not there. The outbox keeps it.
      throw new PublishFailedError(event.id, `no queue is bound to ${event.type} (returned)`);
    }
  }

  async declare(queues: readonly QueueDeclaration[]): Promise<void> {
    if (this.closed) throw new BusClosedError();
    if (queues.length === 0) return;
    const channel = this.connection.createChannel({
      name: 'topology',
      confirm: true,
      json: false,
      setup: async (raw: ConfirmChannel) => {
        for (const declaration of queues) await this.declareOn(raw, declaration);
      },
    });
    try {
      await this.untilConnected(channel.waitForConnect());
    } finally {
      await channel.close();
    }
    for (const declaration of queues) {
      this.topology.push(declaration);
      for (const type of declaration.eventTypes) this.routedTypes.add(type);
    }
  }

  private declareOn(channel: ConfirmChannel, declaration: QueueDeclaration): Promise<void> {
    return declareQueue(
      channel,
      this.exchange,
      `${this.queuePrefix}${declaration.queue}`,
      declaration.eventTypes,
      declaration.retry ?? DEFAULT_RETRY_POLICY,
    );
  }

  async subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    if (this.closed) throw new BusClosedError();
    const { retry, prefetch } = subscriptionSettings(subscription, this.defaultPrefetch);
    for (const type of subscription.eventTypes) this.routedTypes.add(type);
    const consumer = new RabbitMqSubscription({
      connection: this.connection,
      exchange: this.exchange,
      queue: `${this.queuePrefix}${subscription.queue}`,
      subscription,
      prefetch,
      retry,
      // A consumer's pauses and resumptions are its service's (subscribed in its start).
      logger: loggerOf(this.baseLogger, currentService() ?? this.owner),
      onChannelError: (error) => this.recoverFromChannelError(error),
    });
    this.subscriptions.add(consumer);
    await this.untilConnected(consumer.ready());
    return {
      cancel: async () => {
        this.subscriptions.delete(consumer);
        await consumer.cancel();
      },
    };
  }

  /** Waits for `connected`, or fails at once when the broker refuses this connection. */
  private async untilConnected(connected: Promise<void>): Promise<void> {
    await Promise.race([connected, this.refused]);
  }

  isReady(): boolean {
    return !this.closed && this.connection.isConnected();
  }

  /**
   * Stops every consumer (waiting for in-flight handlers), then closes the connection; gives
   * up after `closeTimeoutMs` (a broker gone during the close would hold it forever). What
   * was not acked is redelivered by the broker; what was not confirmed stays in the outbox.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.topologyRefresh);
    // A bus closed while down leaves no trouble behind it.
    forgetBroker(this);
    const clean = (async () => {
      await Promise.allSettled([...this.subscriptions].map((consumer) => consumer.cancel()));
      this.subscriptions.clear();
      await this.publisher.close();
      await this.connection.close();
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.closeTimeoutMs);
    });
    const outcome = await Promise.race([clean.then(() => 'clean' as const), deadline]).finally(() =>
      clearTimeout(timer),
    );
    if (outcome === 'late') {
      this.logger.warn(
        `closing the RabbitMQ connection took over ${this.closeTimeoutMs} ms; abandoning it`,
      );
      void clean.catch(() => undefined);
      // Drops the socket without the closing handshake the broker may never answer.
      void this.connection.close().catch(() => undefined);
    }
  }

  private recoverFromChannelError(error: Error): void {
    if (this.closed) return;
    this.logger.error(`RabbitMQ closed a channel: ${error.message}; reconnecting to recover it`);
    this.connection.reconnect();
  }
}

/**
 * Why the broker refused the connection for good, if it did: the login (403 ACCESS_REFUSED)
 * or the virtual host (closed at `connection.open`: missing, or no access to it).
 */
function refusalReason(error: Error): string | undefined {
  if (/ACCESS[-_]REFUSED/.test(error.message)) return 'login refused, ACCESS_REFUSED';
  if (/Expected ConnectionOpenOk; got <ConnectionClose/.test(error.message)) {
    return 'virtual host refused';
  }
  return undefined;
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
