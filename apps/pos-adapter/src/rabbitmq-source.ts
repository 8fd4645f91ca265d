import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import type { AdapterConfig } from './config';
import type { Logger, OrderPlacer, ReadyEvent } from './order-placer';

/**
 * Receives `order.ready_to_be_placed_in_pos` of one tenant from RabbitMQ: an own durable
 * queue bound to `order.ready_to_be_placed_in_pos.<tenant>` on the `comanda.events` topic
 * exchange, acked only after the outcome was reported. A failure is retried once through
 * a requeue, then dropped (the order's pick-up timeout marks it failed on Comanda's side).
 */
export class RabbitMqSource {
  private connection?: ChannelModel;
  private channel?: Channel;
  private closing = false;

  constructor(
    private readonly settings: NonNullable<AdapterConfig['rabbitmq']>,
    private readonly tenantId: string,
    private readonly placer: OrderPlacer,
    private readonly log: Logger,
    /** Called when the broker connection is lost: the reference exits and is restarted. */
    private readonly onLost: (reason: string) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.connection = await amqp.connect(this.settings.url);
    // No reconnect logic here: the durable queue keeps the events while a supervisor
    // (Docker, Kubernetes, systemd) restarts the process.
    this.connection.on('close', () => {
      if (!this.closing) this.onLost('the RabbitMQ connection closed');
    });
    this.connection.on('error', (error: Error) => this.log.warn(`RabbitMQ: ${error.message}`));
    const channel = await this.connection.createChannel();
    this.channel = channel;
    await channel.assertExchange(this.settings.exchange, 'topic', { durable: true });
    await channel.assertQueue(this.settings.queue, { durable: true });
    await channel.bindQueue(
      this.settings.queue,
      this.settings.exchange,
      `order.ready_to_be_placed_in_pos.${this.tenantId}`,
    );
    await channel.prefetch(4);
    await channel.consume(this.settings.queue, (message) => {
      if (message) void this.receive(channel, message);
    });
    this.log.info(`consuming ${this.settings.queue} on ${this.settings.exchange}`);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.channel?.close().catch(() => undefined);
    await this.connection?.close().catch(() => undefined);
  }

  private async receive(channel: Channel, message: ConsumeMessage): Promise<void> {
    let event: ReadyEvent;
    try {
      event = JSON.parse(message.content.toString('utf8')) as ReadyEvent;
    } catch {
      this.log.warn('dropped a message that is not JSON');
      this.settle(() => channel.nack(message, false, false));
      return;
    }
    try {
      await this.placer.handle(event);
      this.settle(() => channel.ack(message));
    } catch (error) {
      const again = !message.fields.redelivered;
      this.log.warn(
        `event ${event.id} failed (${(error as Error).message}); ${again ? 'requeued once' : 'dropped'}`,
      );
      this.settle(() => channel.nack(message, false, again));
    }
  }

  /**
   * Acks or nacks. On a channel that is closing (the adapter stops, the connection dropped)
   * that is impossible and needs nothing: the broker delivers an unsettled message again.
   */
  private settle(settle: () => void): void {
    try {
      settle();
    } catch (error) {
      if (!this.closing) this.log.warn(`could not settle a message: ${(error as Error).message}`);
    }
  }
}
