import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';

/**
 * A plain amqplib connection for tests: reads queues the way an operator or another client
 * would, publishes raw messages, and removes a suite's queues and exchange afterwards.
 */
export class BrokerAdmin {
  private readonly queues = new Set<string>();

  private constructor(private readonly connection: ChannelModel) {}

  static async connect(url: string): Promise<BrokerAdmin> {
    return new BrokerAdmin(await connect(url));
  }

  /** Remembers a queue to delete in `dispose`. */
  track(...queues: string[]): void {
    for (const queue of queues) this.queues.add(queue);
  }

  /** A durable queue bound to the exchange, to read what a publisher sent like any other client. */
  async bindQueue(queue: string, exchange: string, pattern: string): Promise<void> {
    await this.onChannel(async (channel) => {
      await channel.assertExchange(exchange, 'topic', { durable: true });
      await channel.assertQueue(queue, { durable: true });
      await channel.bindQueue(queue, exchange, pattern);
    });
    this.queues.add(queue);
  }

  /** Takes one message off a queue (acked), or undefined when it is empty. */
  get(queue: string): Promise<GetMessage | undefined> {
    return this.onChannel(async (channel) => {
      const message = await channel.get(queue, { noAck: false });
      if (message === false) return undefined;
      channel.ack(message);
      return message;
    });
  }

  /** Deletes a queue now (as an operator or a failover would), cancelling its consumers. */
  async deleteQueue(queue: string): Promise<void> {
    await this.onChannel((channel) => channel.deleteQueue(queue));
  }

  async messageCount(queue: string): Promise<number> {
    return this.onChannel(async (channel) => (await channel.checkQueue(queue)).messageCount);
  }

  async publishRaw(
    exchange: string,
    routingKey: string,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const channel = await this.connection.createConfirmChannel();
    try {
      channel.publish(exchange, routingKey, Buffer.from(body), { persistent: true, headers });
      await channel.waitForConfirms();
    } finally {
      await channel.close();
    }
  }

  /** Removes a binding under its users, as an operator (or a definitions sync) might. */
  async unbindQueue(queue: string, exchange: string, pattern: string): Promise<void> {
    await this.onChannel((channel) => channel.unbindQueue(queue, exchange, pattern));
  }

  /** Deletes an exchange under its users, as an operator (or a definitions sync) might. */
  async deleteExchange(exchange: string): Promise<void> {
    await this.onChannel((channel) => channel.deleteExchange(exchange));
  }

  /** Runs `work` on a channel of its own, closed after. */
  private async onChannel<T>(work: (channel: Channel) => Promise<T>): Promise<T> {
    const channel = await this.connection.createChannel();
    try {
      return await work(channel);
    } finally {
      await channel.close();
    }
  }

  async dispose(exchange: string): Promise<void> {
    const channel = await this.connection.createChannel();
    for (const queue of this.queues) await channel.deleteQueue(queue);
    await channel.deleteExchange(exchange);
    await channel.close();
    await this.connection.close();
  }
}
