import { createCloudEvent, EventTypes, type CloudEvent } from '@comanda/contracts';
import { waitFor } from '@comanda/testing';
import type { DeliveredMessage, MessageBus, Subscription } from './message-bus';

/** How a contract test sees the dead letters of a queue, whatever the transport. */
export interface DeadLetterView {
  eventId: string;
  error: string;
  attempts: number;
}

export interface BusFixture {
  bus: MessageBus;
  /** Reads (and, on a broker, removes) the dead letters of a queue. */
  takeDeadLetters(queue: string): Promise<DeadLetterView[]>;
  /** Remembers a queue (and its retry and dead-letter queues) for cleanup. */
  track?(queue: string, retryDelaysMs: number[]): void;
}

export function orderPlaced(tenantId = 'tenant-a', orderId = 'order-1'): CloudEvent {
  return createCloudEvent('/comanda/orders', {
    type: EventTypes.OrderPlaced,
    tenantId,
    subject: orderId,
    data: {
      orderId,
      orderName: `#${orderId}`,
      datePlaced: new Date().toISOString(),
      estimatedReadyTime: new Date().toISOString(),
      orderRefs: {},
    },
  });
}

/** An event of another type; its payload does not matter to the transport. */
export function otherEvent(subject: string): CloudEvent {
  return createCloudEvent('/comanda/config-store', {
    type: EventTypes.ConfigUpdated,
    tenantId: 'tenant-a',
    subject,
    data: {
      entity: 'order-charges',
      configId: subject,
      version: 1,
      publisher: 'client-1',
      deleted: false,
    },
  });
}

/**
 * Behaviour every MessageBus must show (RabbitMQ and in-process alike): routing by type,
 * competing consumers, bounded prefetch, retry with back-off then dead-lettering while the
 * queue keeps flowing.
 */
export function describeMessageBusBehaviour(name: string, fixture: () => BusFixture): void {
  describe(`${name}: common MessageBus behaviour`, () => {
    let queueCounter = 0;
    const subscribe = async (partial: Omit<Subscription, 'queue'> & { queue?: string }) => {
      const queue = partial.queue ?? `contract-${++queueCounter}`;
      fixture().track?.(queue, partial.retry?.delaysMs ?? []);
      const handle = await fixture().bus.subscribe({ ...partial, queue });
      return { queue, handle };
    };

    it('delivers an event to every queue bound to its type, with its request id and trace context', async () => {
      const seenByA: DeliveredMessage[] = [];
      const seenByB: DeliveredMessage[] = [];
      await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        handler: async (m) => void seenByA.push(m),
      });
      await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        handler: async (m) => void seenByB.push(m),
      });
      const event = orderPlaced('tenant-x');
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

      await fixture().bus.publish(event, { requestId: 'req-42', traceparent, tracestate: 'a=b' });

      await waitFor(
        'both queues to get the event',
        () => seenByA.length === 1 && seenByB.length === 1,
      );
      for (const [message] of [seenByA, seenByB]) {
        expect(message.event).toEqual(event);
        expect(message.headers).toEqual({ requestId: 'req-42', traceparent, tracestate: 'a=b' });
        expect(message.attempt).toBe(1);
      }
    });

    it('does not deliver events of types the queue is not bound to', async () => {
      const seen: string[] = [];
      await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        handler: async (m) => void seen.push(m.event.type),
      });

      await fixture().bus.publish(otherEvent('config-1'));
      await fixture().bus.publish(orderPlaced('tenant-a', 'order-2'));

      await waitFor('the bound event', () => seen.length >= 1);
      expect(seen).toEqual([EventTypes.OrderPlaced]);
    });

    it('gives each message of a shared queue to exactly one of its competing consumers', async () => {
      const handledBy = new Map<string, string[]>();
      const handler = (consumer: string) => async (message: DeliveredMessage) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        handledBy.set(message.event.id, [...(handledBy.get(message.event.id) ?? []), consumer]);
      };
      const { queue } = await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        prefetch: 1,
        handler: handler('one'),
      });
      await subscribe({
        queue,
        eventTypes: [EventTypes.OrderPlaced],
        prefetch: 1,
        handler: handler('two'),
      });
      const events = Array.from({ length: 20 }, (_, i) => orderPlaced('tenant-a', `order-${i}`));

      await Promise.all(events.map((event) => fixture().bus.publish(event)));

      await waitFor('every event handled', () => handledBy.size === events.length);
      // Give a duplicate delivery the chance to show up before asserting there is none.
      await waitFor('no further deliveries', async () => {
        const before = [...handledBy.values()].flat().length;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return [...handledBy.values()].flat().length === before;
      });
      for (const event of events) expect(handledBy.get(event.id)).toHaveLength(1);
      const consumers = new Set([...handledBy.values()].flat());
      expect(consumers).toEqual(new Set(['one', 'two']));
    });

    it('never runs more handlers at once than the prefetch allows', async () => {
      let running = 0;
      let peak = 0;
      let done = 0;
      await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        prefetch: 2,
        handler: async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 60));
          running--;
          done++;
        },
      });

      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          fixture().bus.publish(orderPlaced('tenant-a', `o-${i}`)),
        ),
      );

      await waitFor('all 8 handled', () => done === 8);
      expect(peak).toBe(2);
    });

    it('retries a failing handler with back-off, then dead-letters it with the error, while the queue keeps flowing', async () => {
      const delaysMs = [150, 400];
      const poison = orderPlaced('tenant-a', 'poison');
      const attempts: Array<{ attempt: number; at: number }> = [];
      const healthyHandledAt: number[] = [];
      const { queue } = await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        prefetch: 1,
        retry: { delaysMs },
        handler: async (message) => {
          if (message.event.id === poison.id) {
            attempts.push({ attempt: message.attempt, at: Date.now() });
            throw new Error('kitchen printer on fire');
          }
          healthyHandledAt.push(Date.now());
        },
      });
      const healthy = Array.from({ length: 5 }, (_, i) => orderPlaced('tenant-a', `fine-${i}`));

      const publishing = Promise.all(
        [poison, ...healthy].map((event) => fixture().bus.publish(event)),
      );

      const deadLetters = await waitFor('the poison message in the dead-letter queue', async () => {
        const letters = await fixture().takeDeadLetters(queue);
        return letters.length > 0 ? letters : undefined;
      });
      await publishing;
      expect(deadLetters).toEqual([
        { eventId: poison.id, error: 'kitchen printer on fire', attempts: 3 },
      ]);
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      // Back-off honoured (a little slack for timer granularity).
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(delaysMs[0] - 20);
      expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(delaysMs[1] - 20);
      // With prefetch 1, the healthy messages were only handled because the failing one
      // left the consumer while it waited for its retry.
      expect(healthyHandledAt).toHaveLength(healthy.length);
      expect(Math.max(...healthyHandledAt)).toBeLessThan(attempts[2].at);
    });

    it('hands a message to the next attempt when the handler succeeds on retry', async () => {
      const attempts: number[] = [];
      const { queue } = await subscribe({
        eventTypes: [EventTypes.OrderPlaced],
        retry: { delaysMs: [50, 50] },
        handler: async (message) => {
          attempts.push(message.attempt);
          if (message.attempt === 1) throw new Error('transient');
        },
      });

      await fixture().bus.publish(orderPlaced());

      await waitFor('the second attempt', () => attempts.length === 2);
      expect(attempts).toEqual([1, 2]);
      expect(await fixture().takeDeadLetters(queue)).toEqual([]);
    });
  });
}
