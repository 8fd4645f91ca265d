import { assertCloudEvent, type CloudEvent } from '@comanda/contracts';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import type { BusLogger } from '../bus/bus-logger';
import type { RetryPolicy, Subscription, SubscriptionHandle } from '../bus/message-bus';
import { classifyFailure } from '../bus/failure-kind';
import { OutagePause } from '../bus/outage-pause';
import { describeError, retryDelayAfter } from '../bus/retry-schedule';
import { AmqpHeaders, attemptOf, fromAmqpHeaders } from './amqp-headers';
import { declareQueue } from './declare-queue';
import { deadLetterQueueName, retryQueueName } from './queue-names';

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
  private current?: ConsumerState;
  private cancelled = false;
  private readonly outage: OutagePause;

  constructor(private readonly config: RabbitMqSubscriptionConfig) {
    this.outage = new OutagePause(config.subscription.probe);
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
    this.outage.stop();
    await this.stopConsuming();
    await Promise.allSettled([...this.inFlight]);
    await this.channel.close();
  }

  private async setup(channel: ConfirmChannel): Promise<void> {
    const state: ConsumerState = { channel, consumerTag: '', open: true };
    channel.on('close', () => (state.open = false));
    // A channel exception (not a connection loss) leaves the wrapper without a channel
    // until the next reconnect; the bus forces one so consuming resumes.
    channel.on('error', (error: Error) => this.config.onChannelError(error));
    await this.declare(channel);
    this.current = state;
    if (this.cancelled) return;
    await channel.prefetch(this.config.prefetch);
    // During an outage the consumer stays off; the pause's end starts it on this channel.
    if (!this.outage.paused) await this.startConsuming(state);
  }

  private declare(channel: ConfirmChannel): Promise<void> {
    const { exchange, queue, subscription, retry } = this.config;
    return declareQueue(channel, exchange, queue, subscription.eventTypes, retry);
  }

  private async startConsuming(state: ConsumerState): Promise<void> {
    const { queue } = this.config;
    if (this.cancelled || !state.open || state.consumerTag) return;
    const { consumerTag } = await state.channel.consume(
      queue,
      (message) => {
        if (message) this.track(this.handle(state, message));
        else void this.recoverFromBrokerCancel(state);
      },
      { noAck: false },
    );
    state.consumerTag = consumerTag;
  }

  private async stopConsuming(): Promise<void> {
    const current = this.current;
    if (!current?.consumerTag) return;
    const tag = current.consumerTag;
    current.consumerTag = '';
    if (current.open) await current.channel.cancel(tag).catch(() => undefined);
  }

  /**
   * The broker cancelled the consumer (queue deleted, node failover): declare the topology
   * again and consume again on the same channel, or force a reconnect if that fails.
   */
  private async recoverFromBrokerCancel(state: ConsumerState): Promise<void> {
    const { queue, logger } = this.config;
    state.consumerTag = '';
    if (this.cancelled) return;
    logger.warn(`the broker cancelled the consumer of ${queue}; declaring it again`);
    try {
      await this.declare(state.channel);
      if (!this.outage.paused) await this.startConsuming(state);
    } catch (error) {
      this.config.onChannelError(
        new Error(`re-consuming ${queue} failed: ${describeError(error)}`),
      );
    }
  }

  /**
   * The handler's infrastructure is down: stop taking messages first, then hand this one
   * back (requeue, attempt unchanged); consume again once the probe answers.
   */
  private async pauseFor(state: ConsumerState, message: ConsumeMessage, error: unknown) {
    const { queue, logger } = this.config;
    const first = !this.outage.paused;
    const over = this.outage.begin();
    if (first) {
      logger.warn(
        `${queue}: pausing while the infrastructure is unavailable (${describeError(error)}); no attempt counted`,
      );
      await this.stopConsuming();
      void over.then(async () => {
        if (this.cancelled) return;
        logger.log(`${queue}: infrastructure answers again, resuming`);
        const current = this.current;
        if (current?.open) {
          await this.startConsuming(current).catch((consumeError: unknown) =>
            this.config.onChannelError(
              new Error(`resuming ${queue} failed: ${describeError(consumeError)}`),
            ),
          );
        }
      });
    }
    settle(state, (channel) => channel.nack(message, false, true));
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
      const kind = classifyFailure(error);
      if (kind === 'infrastructure') await this.pauseFor(state, message, error);
      else if (kind === 'non-retryable') {
        logger.error(
          `${queue}: message ${describeId(message)} cannot succeed, dead-lettering it: ${describeError(error)}`,
        );
        await this.deadLetter(state, message, error, attempt, event);
      } else await this.retryOrDeadLetter(state, message, error, attempt, event);
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
    event: CloudEvent,
  ): Promise<void> {
    const { queue, retry, logger } = this.config;
    const delayMs = retryDelayAfter(retry, attempt);
    if (delayMs === undefined) {
      logger.error(
        `${queue}: message ${describeId(message)} failed ${attempt} times, dead-lettering it: ${describeError(error)}`,
      );
      await this.deadLetter(state, message, error, attempt, event);
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

  private async deadLetter(
    state: ConsumerState,
    message: ConsumeMessage,
    error: unknown,
    attempts: number,
    event?: CloudEvent,
  ): Promise<void> {
    const { queue } = this.config;
    const keep = this.config.subscription.deadLetter;
    if (keep && event) {
      // Kept durably by the service (its dead_letters table); acked once it is written.
      try {
        await keep(
          {
            event,
            headers: fromAmqpHeaders(message.properties.headers),
            attempt: attempts,
            redelivered: message.fields.redelivered,
          },
          describeError(error),
          attempts,
        );
      } catch (keepError) {
        await this.pauseFor(state, message, keepError);
        return;
      }
      settle(state, (channel) => channel.ack(message));
      return;
    }
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

type ConsumerState = { channel: ConfirmChannel; consumerTag: string; open: boolean };

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
