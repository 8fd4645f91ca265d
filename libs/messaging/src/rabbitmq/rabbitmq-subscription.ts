import { assertCloudEvent, type CloudEvent } from '@comanda/contracts';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import type { BusLogger } from '../bus/bus-logger';
import type { RetryPolicy, Subscription, SubscriptionHandle } from '../bus/message-bus';
import { describeError, retryDelayAfter } from '../bus/retry-schedule';
import { AmqpHeaders, attemptOf, fromAmqpHeaders } from './amqp-headers';
import { bindingKeyOf, deadLetterQueueName, retryQueueName } from './queue-names';

export interface RabbitMqSubscriptionConfig {
  connection: AmqpConnectionManager;
  exchange: string;
  /** Full queue name, prefix included. */
  queue: string;
  subscription: Subscription;
  prefetch: number;
  retry: RetryPolicy;
  logger: BusLogger;
  /** Called when the broker closed a channel with an error while the connection stayed up. */
  onChannelError: (error: Error) => void;
}

/**
 * One consumer of one durable queue, on its own confirm channel. Its setup runs again on
 * every reconnect (topology, prefetch, consumer). A message is acked on the channel it
 * arrived on, and only once its handler resolved or it was safely moved to a retry queue
 * or the dead-letter queue; if that channel died meanwhile the broker redelivers it.
 */
export class RabbitMqSubscription implements SubscriptionHandle {
  private readonly channel: ChannelWrapper;
  private readonly inFlight = new Set<Promise<void>>();
  private current?: { channel: ConfirmChannel; consumerTag: string; open: boolean };
  private cancelled = false;

  constructor(private readonly config: RabbitMqSubscriptionConfig) {
    this.channel = config.connection.createChannel({
      name: `consumer ${config.queue}`,
      confirm: true,
      json: false,
      setup: (channel: ConfirmChannel) => this.setup(channel),
    });
    this.channel.on('error', (error: Error) =>
      config.logger.error(`setting up the consumer of ${config.queue} failed: ${error.message}`),
    );
  }

  /** Resolves once the queue is declared, bound and consumed from on the current connection. */
  ready(): Promise<void> {
    return this.channel.waitForConnect();
  }

  async cancel(): Promise<void> {
    if (this.cancelled) return;
    this.cancelled = true;
    const current = this.current;
    if (current?.open) {
      await current.channel.cancel(current.consumerTag).catch(() => undefined);
    }
    await Promise.allSettled([...this.inFlight]);
    await this.channel.close();
  }

  private async setup(channel: ConfirmChannel): Promise<void> {
    const { exchange, queue, subscription, retry, prefetch } = this.config;
    const state = { channel, consumerTag: '', open: true };
    channel.on('close', () => (state.open = false));
    // A channel exception (not a connection loss) leaves the wrapper without a channel
    // until the next reconnect; the bus forces one so consuming resumes.
    channel.on('error', (error: Error) => this.config.onChannelError(error));

    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: true });
    for (const eventType of subscription.eventTypes) {
      await channel.bindQueue(queue, exchange, bindingKeyOf(eventType));
    }
    for (const delayMs of new Set(retry.delaysMs)) {
      await channel.assertQueue(retryQueueName(queue, delayMs), {
        durable: true,
        arguments: {
          'x-message-ttl': delayMs,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': queue,
        },
      });
    }
    await channel.assertQueue(deadLetterQueueName(queue), { durable: true });
    if (this.cancelled) return;
    await channel.prefetch(prefetch);
    const { consumerTag } = await channel.consume(
      queue,
      (message) => {
        if (message) this.track(this.handle(state, message));
        else this.config.logger.warn(`the broker cancelled the consumer of ${queue}`);
      },
      { noAck: false },
    );
    state.consumerTag = consumerTag;
    this.current = state;
  }

  private track(work: Promise<void>): void {
    const settled = work.catch((error: unknown) =>
      this.config.logger.error(
        `${this.config.queue}: unexpected failure while settling a message: ${describeError(error)}`,
      ),
    );
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  private async handle(state: ConsumerState, message: ConsumeMessage): Promise<void> {
    const { queue, logger } = this.config;
    if (this.cancelled) {
      settle(state, (channel) => channel.nack(message, false, true));
      return;
    }
    const amqpHeaders = message.properties.headers;
    const attempt = attemptOf(amqpHeaders);
    let event: CloudEvent;
    try {
      const body: unknown = JSON.parse(message.content.toString('utf8'));
      assertCloudEvent(body);
      event = body;
    } catch (error) {
      logger.error(
        `${queue}: message ${describeId(message)} is not a CloudEvent, dead-lettering it: ${describeError(error)}`,
      );
      await this.deadLetter(state, message, error, attempt);
      return;
    }
    try {
      await this.config.subscription.handler({
        event,
        headers: fromAmqpHeaders(amqpHeaders),
        attempt,
        redelivered: message.fields.redelivered,
      });
    } catch (error) {
      await this.retryOrDeadLetter(state, message, error, attempt);
      return;
    }
    if (!settle(state, (channel) => channel.ack(message))) {
      logger.warn(
        `${queue}: event ${event.id} was handled after its channel closed; the broker redelivers it`,
      );
    }
  }

  private async retryOrDeadLetter(
    state: ConsumerState,
    message: ConsumeMessage,
    error: unknown,
    attempt: number,
  ): Promise<void> {
    const { queue, retry, logger } = this.config;
    const delayMs = retryDelayAfter(retry, attempt);
    if (delayMs === undefined) {
      logger.error(
        `${queue}: message ${describeId(message)} failed ${attempt} times, dead-lettering it: ${describeError(error)}`,
      );
      await this.deadLetter(state, message, error, attempt);
      return;
    }
    logger.warn(
      `${queue}: message ${describeId(message)} failed on attempt ${attempt}, retrying in ${delayMs} ms: ${describeError(error)}`,
    );
    await this.moveTo(state, message, retryQueueName(queue, delayMs), {
      [AmqpHeaders.attempt]: attempt + 1,
      [AmqpHeaders.lastError]: describeError(error),
    });
  }

  private deadLetter(
    state: ConsumerState,
    message: ConsumeMessage,
    error: unknown,
    attempts: number,
  ): Promise<void> {
    const { queue } = this.config;
    return this.moveTo(state, message, deadLetterQueueName(queue), {
      [AmqpHeaders.error]: describeError(error),
      [AmqpHeaders.attempts]: attempts,
      [AmqpHeaders.failedAt]: new Date().toISOString(),
      [AmqpHeaders.queue]: queue,
    });
  }

  /** Copies the message to another queue, waits for the broker's confirm, then acks the original. */
  private async moveTo(
    state: ConsumerState,
    message: ConsumeMessage,
    target: string,
    extraHeaders: Record<string, string | number>,
  ): Promise<void> {
    const { queue, logger } = this.config;
    // x-death grows with every pass through a retry queue; our own headers carry the count.
    // x-death grows with every pass through a retry queue; our own headers carry the count.
    const headers: Record<string, unknown> = { ...message.properties.headers };
    delete headers['x-death'];
    const options: Options.Publish = {
      persistent: true,
      contentType: message.properties.contentType,
      messageId: message.properties.messageId,
      type: message.properties.type,
      timestamp: message.properties.timestamp,
      headers: { ...headers, ...extraHeaders },
    };
    try {
      await new Promise<void>((resolve, reject) => {
        if (!state.open) return reject(new Error('channel closed'));
        state.channel.sendToQueue(target, message.content, options, (error: unknown) =>
          error ? reject(error) : resolve(),
        );
      });
    } catch (error) {
      // Not moved: leave it to the broker (redelivery on a dead channel, requeue otherwise).
      logger.error(
        `${queue}: could not move message ${describeId(message)} to ${target}: ${describeError(error)}`,
      );
      settle(state, (channel) => channel.nack(message, false, true));
      return;
    }
    settle(state, (channel) => channel.ack(message));
  }
}

type ConsumerState = { channel: ConfirmChannel; open: boolean };

/** Acks or nacks on the delivering channel if it is still open; false when it is not. */
function settle(state: ConsumerState, action: (channel: ConfirmChannel) => void): boolean {
  if (!state.open) return false;
  try {
    action(state.channel);
    return true;
  } catch {
    // The channel closed between the check and the call: the broker redelivers the message.
    return false;
  }
}

function describeId(message: ConsumeMessage): string {
  return String(message.properties.messageId ?? `#${message.fields.deliveryTag}`);
}
