import { createServer, Socket, type AddressInfo } from 'node:net';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { createTestBroker, type TestBroker, waitFor, TcpProxy } from '@comanda/testing';
import { lastBrokerTroubleAt } from '../broker-trouble';
import { describeMessageBusBehaviour, orderPlaced } from '../bus/message-bus.contract';
import { DEFAULT_RETRY_POLICY, type DeliveredMessage } from '../bus/message-bus';
import { PublishFailedError } from '../bus/messaging.errors';
import { AmqpHeaders, CLOUDEVENTS_CONTENT_TYPE } from './amqp-headers';
import { bindingKeyOf, deadLetterQueueName, retryQueueName } from './queue-names';
import { RabbitMqBus, type RabbitMqBusOptions } from './rabbitmq-bus';
import { BrokerAdmin } from './test-support/broker-admin';

const quietLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('RabbitMqBus', () => {
  let broker: TestBroker;
  let admin: BrokerAdmin;
  const buses: RabbitMqBus[] = [];
  const proxies: TcpProxy[] = [];

  const newBus = (options: Partial<RabbitMqBusOptions> = {}) => {
    const bus = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      reconnectDelayMs: 100,
      logger: quietLogger,
      ...options,
    });
    buses.push(bus);
    return bus;
  };
  /** Full name of a suite queue, remembered with its retry and dead-letter queues for cleanup. */
  const track = (queue: string, retryDelaysMs: number[] = DEFAULT_RETRY_POLICY.delaysMs) => {
    const name = `${broker.queuePrefix}${queue}`;
    admin.track(
      name,
      deadLetterQueueName(name),
      ...retryDelaysMs.map((ms) => retryQueueName(name, ms)),
    );
    return name;
  };

  beforeAll(async () => {
    broker = await createTestBroker('rabbitmq-bus');
    admin = await BrokerAdmin.connect(broker.url);
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
  });
  afterAll(() => admin.dispose(broker.exchange));

  describe('shared behaviour', () => {
    let bus: RabbitMqBus;
    beforeEach(() => {
      bus = newBus();
    });

    describeMessageBusBehaviour('RabbitMqBus', () => ({
      bus,
      track: (queue, delays) => void track(queue, [...delays, ...DEFAULT_RETRY_POLICY.delaysMs]),
      takeDeadLetters: async (queue) => {
        const letters = [];
        for (;;) {
          const message = await admin.get(deadLetterQueueName(`${broker.queuePrefix}${queue}`));
          if (!message) return letters;
          const headers = message.properties.headers ?? {};
          letters.push({
            eventId: (JSON.parse(message.content.toString()) as CloudEvent).id,
            error: String(headers[AmqpHeaders.error]),
            attempts: Number(headers[AmqpHeaders.attempts]),
          });
        }
      },
    }));
  });

  it('publishes persistent CloudEvents messages with the request id and trace context in AMQP headers', async () => {
    const bus = newBus();
    const queue = track('raw-reader');
    await admin.bindQueue(queue, broker.exchange, `${EventTypes.OrderPlaced}.*`);
    const event = orderPlaced('tenant-7');
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

    await bus.publish(event, { requestId: 'req-1', traceparent, tracestate: 'vendor=x' });

    const message = await waitFor('the message in the queue', () => admin.get(queue));
    expect(message.fields.routingKey).toBe(`${EventTypes.OrderPlaced}.tenant-7`);
    expect(message.properties).toMatchObject({
      deliveryMode: 2,
      contentType: CLOUDEVENTS_CONTENT_TYPE,
      messageId: event.id,
      type: EventTypes.OrderPlaced,
      headers: { 'x-request-id': 'req-1', traceparent, tracestate: 'vendor=x' },
    });
    expect(JSON.parse(message.content.toString())).toEqual(event);
  });

  it("sends each frame at once (TCP_NODELAY), so a publish written after an unanswered ack never waits for the broker's delayed TCP ack", async () => {
    // With Nagle's algorithm on, a relay's publish that follows a consumer's ack on the same
    // connection waited ~40 ms per event (seen in bench/checkout-to-pos.ts).
    const setNoDelay = jest.spyOn(Socket.prototype, 'setNoDelay');
    try {
      await newBus().publish(orderPlaced('tenant-nodelay'));
      expect(setNoDelay).toHaveBeenCalledWith(true);
      expect(setNoDelay).not.toHaveBeenCalledWith(false);
    } finally {
      setNoDelay.mockRestore();
    }
  });

  it("does not ack a message whose handler has not finished: a dead consumer's message goes to another consumer", async () => {
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    proxies.push(proxy);
    const doomed = newBus({ url: proxy.urlFor(broker.url) });
    const survivor = newBus();
    track('handover');
    let doomedStarted = false;
    let releaseDoomed!: () => void;
    await doomed.subscribe({
      queue: 'handover',
      eventTypes: [EventTypes.OrderPlaced],
      prefetch: 1,
      handler: async () => {
        doomedStarted = true;
        await new Promise<void>((resolve) => (releaseDoomed = resolve));
      },
    });
    const event = orderPlaced();
    await doomed.publish(event);
    await waitFor('the first consumer to be handling it', () => doomedStarted);

    const seenBySurvivor: DeliveredMessage[] = [];
    await survivor.subscribe({
      queue: 'handover',
      eventTypes: [EventTypes.OrderPlaced],
      handler: async (message) => void seenBySurvivor.push(message),
    });
    // While the first consumer holds it unacked, the queue serves others past it.
    const later = orderPlaced('tenant-a', 'order-later');
    await survivor.publish(later);
    await waitFor(
      'the second consumer to get the later message',
      () => seenBySurvivor.length === 1,
    );
    expect(seenBySurvivor[0].event.id).toBe(later.id);

    await proxy.stop();

    await waitFor(
      'the second consumer to get the unfinished message',
      () => seenBySurvivor.length === 2,
    );
    expect(seenBySurvivor[1]).toMatchObject({ event: { id: event.id }, redelivered: true });
    // The first handler finishing late must not disturb anything (its channel is gone).
    releaseDoomed();
  });

  it('dead-letters a message that is not a CloudEvent at once, with the reason', async () => {
    const bus = newBus();
    const queue = track('garbage', [10]);
    const handled: DeliveredMessage[] = [];
    await bus.subscribe({
      queue: 'garbage',
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [10] },
      handler: async (message) => void handled.push(message),
    });

    await admin.publishRaw(
      broker.exchange,
      `${EventTypes.OrderPlaced}.tenant-a`,
      '{"hello":"world"}',
    );

    const dead = await waitFor('the message in the dead-letter queue', () =>
      admin.get(deadLetterQueueName(queue)),
    );
    expect(dead.content.toString()).toBe('{"hello":"world"}');
    expect(dead.properties.headers).toMatchObject({
      [AmqpHeaders.error]: expect.stringContaining('specversion'),
      [AmqpHeaders.attempts]: 1,
      [AmqpHeaders.queue]: queue,
      [AmqpHeaders.failedAt]: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(handled).toHaveLength(0);
  });

  it('records the last error, the attempts and the time on a dead letter', async () => {
    const bus = newBus();
    const queue = track('failing', [30, 60]);
    await bus.subscribe({
      queue: 'failing',
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [30, 60] },
      handler: async (message) => {
        throw new Error(`attempt ${message.attempt} failed`);
      },
    });
    const event = orderPlaced();
    const before = Date.now();

    await bus.publish(event, { requestId: 'req-dlq' });

    const dead = await waitFor('the dead letter', () => admin.get(deadLetterQueueName(queue)));
    const headers = dead.properties.headers ?? {};
    expect(headers).toMatchObject({
      [AmqpHeaders.error]: 'attempt 3 failed',
      [AmqpHeaders.attempts]: 3,
      [AmqpHeaders.requestId]: 'req-dlq',
    });
    expect(Date.parse(String(headers[AmqpHeaders.failedAt]))).toBeGreaterThanOrEqual(before);
    expect(dead.properties).toMatchObject({ deliveryMode: 2, messageId: event.id });
    expect(await admin.messageCount(queue)).toBe(0);
  });

  it('rejects publish when the broker cannot be reached, instead of resolving', async () => {
    const closedPort = await freePort();
    const bus = newBus({
      url: `amqp://guest:guest@127.0.0.1:${closedPort}`,
      publishTimeoutMs: 300,
    });

    await expect(bus.publish(orderPlaced())).rejects.toBeInstanceOf(PublishFailedError);
    expect(bus.isReady()).toBe(false);
  });

  it('resumes publishing and consuming after the connection drops mid-stream, losing nothing', async () => {
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    proxies.push(proxy);
    const bus = newBus({ url: proxy.urlFor(broker.url), publishTimeoutMs: 2_000 });
    track('flaky-network');
    const handled = new Set<string>();
    await bus.subscribe({
      queue: 'flaky-network',
      eventTypes: [EventTypes.OrderPlaced],
      handler: async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        handled.add(message.event.id);
      },
    });
    const events = Array.from({ length: 150 }, (_, i) => orderPlaced('tenant-a', `order-${i}`));

    // Publish as the outbox relay does: one at a time, retrying until confirmed.
    let drops = 0;
    const publishing = (async () => {
      for (const event of events) {
        for (;;) {
          try {
            await bus.publish(event);
            break;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
    })();
    for (const at of [30, 70, 110]) {
      await waitFor(`${at} events handled`, () => handled.size >= at);
      proxy.dropConnections();
      drops++;
    }
    await publishing;

    await waitFor('every published event handled', () => handled.size === events.length, {
      timeoutMs: 20_000,
    });
    expect(drops).toBe(3);
    expect(bus.isReady()).toBe(true);
  });

  it('tells the process while its broker is away, and when it is back (the deadlines wait for it, ADR 0068)', async () => {
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
    proxies.push(proxy);
    const bus = newBus({ url: proxy.urlFor(broker.url), reconnectDelayMs: 100 });
    await waitFor('the bus to connect', () => bus.isReady());
    const before = lastBrokerTroubleAt();

    proxy.goDown();
    await waitFor('the trouble to be noted', () => lastBrokerTroubleAt() !== before);
    // Now, for as long as it is away.
    const during = lastBrokerTroubleAt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((lastBrokerTroubleAt() ?? 0) - (during ?? 0)).toBeGreaterThanOrEqual(250);

    proxy.comeBack();
    await waitFor('the bus to connect again', () => bus.isReady());
    const back = lastBrokerTroubleAt() as number;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Then the moment it came back, which holds still.
    expect(lastBrokerTroubleAt()).toBe(back);
    expect(back).toBeGreaterThan(during as number);
  });

  it('gives every declared consumer its binding back after the exchange was deleted under it, before publishing again', async () => {
    const bus = newBus();
    const first = track('exchange-gone-a');
    const second = track('exchange-gone-b');
    await bus.declare([
      { queue: 'exchange-gone-a', eventTypes: [EventTypes.OrderPlaced] },
      { queue: 'exchange-gone-b', eventTypes: [EventTypes.OrderPlaced] },
    ]);
    // Deleted under the running bus: the queues stay, their bindings go with it.
    await admin.deleteExchange(broker.exchange);

    const event = orderPlaced();
    // Published as the outbox relay does: until confirmed. The first try finds the exchange
    // gone, which closes the channel; the bus reconnects and sets its channel up again.
    await waitFor('the publish to be confirmed', () =>
      bus.publish(event).then(
        () => true,
        () => false,
      ),
    );
    for (const queue of [first, second]) {
      const got = await waitFor(`the event in ${queue}`, () => admin.get(queue));
      expect(got.properties.messageId).toBe(event.id);
    }
  });

  it('binds a declared queue again after its binding was removed while the exchange stayed', async () => {
    const bus = newBus({ topologyRefreshMs: 200 });
    const first = track('unbound-a');
    const second = track('unbound-b');
    await bus.declare([
      { queue: 'unbound-a', eventTypes: [EventTypes.OrderPlaced] },
      { queue: 'unbound-b', eventTypes: [EventTypes.OrderPlaced] },
    ]);
    // No channel fails: the event still reaches the first queue, so it is confirmed.
    await admin.unbindQueue(second, broker.exchange, bindingKeyOf(EventTypes.OrderPlaced));

    await waitFor('the second queue to take events again', async () => {
      await bus.publish(orderPlaced());
      return (await admin.messageCount(second)) > 0;
    });
    const event = orderPlaced();
    await bus.publish(event);
    for (const queue of [first, second]) {
      const ids = [];
      for (let got = await admin.get(queue); got; got = await admin.get(queue)) {
        ids.push(got.properties.messageId);
      }
      expect(ids).toContain(event.id);
    }
  });

  it('waits for in-flight handlers when a subscription is cancelled', async () => {
    const bus = newBus();
    track('cancel');
    let release!: () => void;
    let finished = false;
    const handle = await bus.subscribe({
      queue: 'cancel',
      eventTypes: [EventTypes.OrderPlaced],
      handler: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      },
    });
    await bus.publish(orderPlaced());
    await waitFor('the handler to start', () => release !== undefined);

    const cancelling = handle.cancel();
    setTimeout(() => release(), 50);
    await cancelling;

    expect(finished).toBe(true);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
