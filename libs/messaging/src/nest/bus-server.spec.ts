import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { type Observable, map, timer } from 'rxjs';
import { EventTypes, createCloudEvent, type CloudEvent } from '@comanda/contracts';
import { currentContext, parseTraceparent, type RequestContext } from '@comanda/context';
import { createTestBroker, waitFor, type TestBroker } from '@comanda/testing';
import { orderPlaced } from '../bus/message-bus.contract';
import type { MessageBus } from '../bus/message-bus';
import { InProcessBus } from '../in-process/in-process-bus';
import { AmqpHeaders } from '../rabbitmq/amqp-headers';
import { deadLetterQueueName, retryQueueName } from '../rabbitmq/queue-names';
import { RabbitMqBus } from '../rabbitmq/rabbitmq-bus';
import { BrokerAdmin } from '../rabbitmq/test-support/broker-admin';
import { BusContext } from './bus-context';
import { BusExceptionFilter } from './bus-exception.filter';
import { BusServer } from './bus-server';
import { OnEvent } from './on-event.decorator';

const quietLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };
const SINK = Symbol('SINK');

interface Seen {
  consumer: string;
  eventId: string;
  attempt: number;
  queue: string;
  context: RequestContext | undefined;
}

@Controller()
class KitchenHandlers {
  constructor(@Inject(SINK) private readonly seen: Seen[]) {}

  @OnEvent(EventTypes.OrderPlaced, 'print-ticket')
  async printTicket(
    @Payload() event: CloudEvent<'order.placed'>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.record('print-ticket', event, ctx);
  }

  // Same event type, another consumer: its own queue, its own copy of each event.
  @OnEvent(EventTypes.OrderPlaced, 'notify-guest')
  notifyGuest(
    @Payload() event: CloudEvent<'order.placed'>,
    @Ctx() ctx: BusContext,
  ): Observable<void> {
    return timer(40).pipe(map(() => this.record('notify-guest', event, ctx)));
  }

  @OnEvent(EventTypes.PaymentFailed, 'refund-desk')
  refund(): void {
    throw new Error('refund desk is closed');
  }

  private record(consumer: string, event: CloudEvent, ctx: BusContext): void {
    this.seen.push({
      consumer,
      eventId: event.id,
      attempt: ctx.getMessage().attempt,
      queue: ctx.getQueue(),
      context: currentContext(),
    });
  }
}

async function startKitchen(bus: MessageBus, seen: Seen[]): Promise<INestMicroservice> {
  @Module({ controllers: [KitchenHandlers], providers: [{ provide: SINK, useValue: seen }] })
  class KitchenModule {}
  const app = await NestFactory.createMicroservice(KitchenModule, {
    strategy: new BusServer(bus, {
      service: 'kitchen',
      prefetch: 4,
      retry: { delaysMs: [30, 30] },
    }),
    logger: false,
  });
  app.useGlobalFilters(new BusExceptionFilter());
  await app.listen();
  return app;
}

function paymentFailed(): CloudEvent {
  return createCloudEvent('/comanda/payments', {
    type: EventTypes.PaymentFailed,
    tenantId: 'tenant-9',
    subject: 'payment-1',
    data: {
      paymentId: 'payment-1',
      orderId: 'order-1',
      amount: { value: 1250, currency: 'EUR' },
      reason: 'declined',
    },
  });
}

describe('BusServer on RabbitMQ', () => {
  let broker: TestBroker;
  let admin: BrokerAdmin;
  let bus: RabbitMqBus;
  let app: INestMicroservice;
  const seen: Seen[] = [];

  beforeAll(async () => {
    broker = await createTestBroker('bus-server');
    admin = await BrokerAdmin.connect(broker.url);
    for (const consumer of ['print-ticket', 'notify-guest', 'refund-desk']) {
      const queue = `${broker.queuePrefix}kitchen.${consumer}`;
      admin.track(queue, deadLetterQueueName(queue), retryQueueName(queue, 30));
    }
    bus = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      logger: quietLogger,
    });
    app = await startKitchen(bus, seen);
  });
  afterAll(async () => {
    await app.close();
    await bus.close();
    await admin.dispose(broker.exchange);
  });

  it('runs @OnEvent handlers with the request id, trace and tenant of the message in currentContext()', async () => {
    const event = orderPlaced('tenant-9');
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

    await bus.publish(event, { requestId: 'req-nest-1', traceparent });

    await waitFor('both consumers to handle the event', () =>
      ['print-ticket', 'notify-guest'].every((consumer) =>
        seen.some((s) => s.consumer === consumer && s.eventId === event.id),
      ),
    );
    const mine = seen.filter((s) => s.eventId === event.id);
    expect(mine).toHaveLength(2);
    for (const delivery of mine) {
      expect(delivery.queue).toBe(`kitchen.${delivery.consumer}`);
      expect(delivery.context).toMatchObject({ requestId: 'req-nest-1', tenantId: 'tenant-9' });
      const trace = parseTraceparent(delivery.context?.traceparent);
      expect(trace?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(trace?.parentId).not.toBe('00f067aa0ba902b7');
    }
  });

  it('gives a message without a request id a fresh one', async () => {
    const event = orderPlaced('tenant-9');

    await bus.publish(event);

    const delivery = await waitFor('the event handled', () =>
      seen.find((s) => s.eventId === event.id && s.consumer === 'print-ticket'),
    );
    expect(delivery.context?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("retries a throwing handler, then dead-letters the message with the handler's error", async () => {
    const event = paymentFailed();

    await bus.publish(event, { requestId: 'req-refund' });

    const queue = `${broker.queuePrefix}kitchen.refund-desk`;
    const dead = await waitFor('the dead letter', () => admin.get(deadLetterQueueName(queue)));
    expect(JSON.parse(dead.content.toString()).id).toBe(event.id);
    expect(dead.properties.headers).toMatchObject({
      [AmqpHeaders.error]: 'refund desk is closed',
      [AmqpHeaders.attempts]: 3,
      [AmqpHeaders.requestId]: 'req-refund',
    });
  });
});

describe('BusServer on the in-process bus', () => {
  it('settles a message only after an Observable handler completed', async () => {
    const bus = new InProcessBus({ logger: quietLogger });
    const seen: Seen[] = [];
    const app = await startKitchen(bus, seen);
    try {
      const event = orderPlaced('tenant-1');

      await bus.publish(event);

      // publish resolves once every queue settled: the Observable (40 ms timer) had completed.
      expect(
        seen
          .filter((s) => s.eventId === event.id)
          .map((s) => s.consumer)
          .sort(),
      ).toEqual(['notify-guest', 'print-ticket']);
    } finally {
      await app.close();
      await bus.close();
    }
  });

  it('refuses to start when a handler names no consumer', async () => {
    const bus = new InProcessBus({ logger: quietLogger });
    const server = new BusServer(bus, { service: 'kitchen' });
    server.addHandler(EventTypes.OrderPlaced, async () => undefined, true, {});
    const failure = await new Promise<unknown>((resolve) => void server.listen(resolve));

    expect(failure).toMatchObject({ code: 'messaging.invalid_subscription' });
    await bus.close();
  });
});
