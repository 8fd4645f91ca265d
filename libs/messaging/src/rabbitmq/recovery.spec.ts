import { currentService, runInService } from '@comanda/context';
import { createTestBroker, waitFor, type TestBroker, TcpProxy } from '@comanda/testing';
import { orderPlaced, otherEvent } from '../bus/message-bus.contract';
import { deadLetterQueueName } from './queue-names';
import { RabbitMqBus } from './rabbitmq-bus';
import { BrokerAdmin } from './test-support/broker-admin';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('RabbitMqBus recovery', () => {
  let broker: TestBroker;
  let admin: BrokerAdmin;

  beforeAll(async () => {
    broker = await createTestBroker('recovery');
    admin = await BrokerAdmin.connect(broker.url);
  });
  afterAll(async () => {
    await admin.dispose(broker.exchange);
  });

  it('declares its queue again and consumes again after the broker cancels the consumer (queue deleted)', async () => {
    const bus = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      logger: quiet,
    });
    const queue = `${broker.queuePrefix}recovery.cancelled`;
    admin.track(queue, deadLetterQueueName(queue));
    const seen: string[] = [];
    try {
      await bus.subscribe({
        queue: 'recovery.cancelled',
        eventTypes: ['order.placed'],
        retry: { delaysMs: [] },
        handler: async ({ event }) => void seen.push(event.id),
      });
      const before = orderPlaced('tenant-a', 'before');
      await bus.publish(before);
      await waitFor('the first event', () => seen.includes(before.id));

      await admin.deleteQueue(queue); // the broker cancels the consumer

      const after = orderPlaced('tenant-a', 'after');
      // Published until the queue is back (unroutable publishes are refused, not dropped).
      await waitFor('the event delivered to the re-declared queue', async () => {
        await bus.publish(after).catch(() => undefined);
        return seen.includes(after.id);
      });
    } finally {
      await bus.close();
    }
  });

  it('refuses a publish the broker returns as unroutable, instead of confirming it away', async () => {
    const bus = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      logger: quiet,
    });
    const queue = `${broker.queuePrefix}recovery.routed`;
    admin.track(queue, deadLetterQueueName(queue));
    try {
      // A type no other queue of this suite takes.
      await bus.declare([
        { queue: 'recovery.routed', eventTypes: ['config.updated'], retry: { delaysMs: [] } },
      ]);
      await admin.deleteQueue(queue);
      await expect(bus.publish(otherEvent('cfg-1'))).rejects.toMatchObject({
        code: 'messaging.publish_failed',
        message: expect.stringContaining('returned'),
      });
    } finally {
      await bus.close();
    }
  });

  it('closes within its deadline when the broker is gone during the close', async () => {
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    const bus = new RabbitMqBus({
      url: proxy.urlFor(broker.url),
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      closeTimeoutMs: 1_000,
      logger: quiet,
    });
    const queue = `${broker.queuePrefix}recovery.closing`;
    admin.track(queue, deadLetterQueueName(queue));
    try {
      let release: () => void = () => undefined;
      await bus.subscribe({
        queue: 'recovery.closing',
        eventTypes: ['order.placed'],
        retry: { delaysMs: [] },
        // A handler still running when the broker goes: close waits for it, up to the deadline.
        handler: () => new Promise<void>((resolve) => (release = resolve)),
      });
      await bus.publish(orderPlaced());
      await waitFor('the handler to start', () => proxy.connections > 0);
      proxy.goDown();
      await bus.close(); // a hang here fails the test by its timeout
      release();
    } finally {
      await proxy.stop();
    }
  });

  it("writes the connection's lines as the work that opened it, a consumer's as its service's", async () => {
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    const lines: Array<{ service: string | undefined; message: string }> = [];
    const record = (message: unknown) =>
      void lines.push({ service: currentService(), message: String(message) });
    // Opened by the standalone platform, consumed by one of its services.
    const bus = runInService(
      'platform',
      () =>
        new RabbitMqBus({
          url: proxy.urlFor(broker.url),
          exchange: broker.exchange,
          queuePrefix: broker.queuePrefix,
          reconnectDelayMs: 100,
          logger: { log: record, warn: record, error: record },
        }),
    );
    const queue = `${broker.queuePrefix}recovery.attributed`;
    admin.track(queue, deadLetterQueueName(queue));
    const line = (text: string) => lines.find((entry) => entry.message.includes(text));
    try {
      await runInService('orders', () =>
        bus.subscribe({
          queue: 'recovery.attributed',
          eventTypes: ['order.placed'],
          retry: { delaysMs: [] },
          handler: async () => undefined,
        }),
      );
      await admin.deleteQueue(queue); // the broker cancels the consumer
      await waitFor('the cancelled consumer', () => line('cancelled the consumer') !== undefined);
      proxy.dropConnections();
      await waitFor(
        'the lost connection',
        () => line('lost the RabbitMQ connection') !== undefined,
      );
      expect(line('cancelled the consumer')?.service).toBe('orders');
      expect(line('lost the RabbitMQ connection')?.service).toBe('platform');
      expect(line('connected to RabbitMQ')?.service).toBe('platform');
    } finally {
      await bus.close();
      await proxy.stop();
    }
  });
});
