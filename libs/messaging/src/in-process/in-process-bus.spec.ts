import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { waitFor } from '@comanda/testing';
import { describeMessageBusBehaviour, orderPlaced } from '../bus/message-bus.contract';
import { type DeadLetter, InProcessBus } from './in-process-bus';

const quietLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('InProcessBus', () => {
  let bus: InProcessBus;
  let reported: DeadLetter[];
  const taken = new Map<string, number>();

  beforeEach(() => {
    reported = [];
    taken.clear();
    bus = new InProcessBus({
      logger: quietLogger,
      onDeadLetter: (letter) => reported.push(letter),
    });
  });
  afterEach(() => bus.close());

  describeMessageBusBehaviour('InProcessBus', () => ({
    bus,
    takeDeadLetters: async (queue) => {
      const letters = bus.deadLetters(queue).slice(taken.get(queue) ?? 0);
      taken.set(queue, (taken.get(queue) ?? 0) + letters.length);
      return letters.map((letter) => ({
        eventId: letter.event.id,
        error: letter.error,
        attempts: letter.attempts,
      }));
    },
  }));

  it('resolves publish only after every bound queue has handled the event', async () => {
    const releases: Array<() => void> = [];
    const handled: string[] = [];
    for (const queue of ['orders.fast', 'payments.slow']) {
      await bus.subscribe({
        queue,
        eventTypes: [EventTypes.OrderPlaced],
        handler: async () => {
          await new Promise<void>((resolve) => releases.push(resolve));
          handled.push(queue);
        },
      });
    }
    let settled = false;
    const publishing = bus.publish(orderPlaced()).then(() => (settled = true));

    await waitFor('both handlers to start', () => releases.length === 2);
    releases[0]();
    await waitFor('the first queue to handle it', () => handled.length === 1);
    expect(settled).toBe(false);
    releases[1]();
    await publishing;
    expect(handled.sort()).toEqual(['orders.fast', 'payments.slow']);
  });

  it('resolves publish only once a failing event is dead-lettered, and reports the dead letter', async () => {
    await bus.subscribe({
      queue: 'orders.broken',
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [20] },
      handler: async () => {
        throw new Error('no such store');
      },
    });
    const event = orderPlaced();

    await bus.publish(event);

    expect(reported).toEqual([
      expect.objectContaining({
        queue: 'orders.broken',
        event,
        error: 'no such store',
        attempts: 2,
      }),
    ]);
    expect(bus.deadLetters('orders.broken')).toEqual(reported);
  });

  it("settles a failed message once deferRetry kept its retry, and leaves the retry to the hook's owner", async () => {
    const deferred: Array<{ attempt: number; delayMs: number; error: string }> = [];
    const attempts: number[] = [];
    await bus.subscribe({
      queue: 'orders.deferred',
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [30_000] },
      prefetch: 1,
      deferRetry: async (message, delayMs, error) => {
        deferred.push({ attempt: message.attempt, delayMs, error });
      },
      handler: async (message) => {
        attempts.push(message.attempt);
        if (message.event.subject === 'order-broken') throw new Error('printer jammed');
      },
    });

    // Neither publish waits for the 30 s back-off of the first; nothing is retried in memory.
    await bus.publish(orderPlaced('tenant-a', 'order-broken'));
    await bus.publish(orderPlaced('tenant-a', 'order-fine'));

    expect(deferred).toEqual([{ attempt: 1, delayMs: 30_000, error: 'printer jammed' }]);
    expect(attempts).toEqual([1, 1]);
    expect(reported).toEqual([]);
  });

  it('holds a failed message whose retry could not be kept, and hands it over again', async () => {
    let keepFails = true;
    const deferred: number[] = [];
    await bus.subscribe({
      queue: 'orders.defer-fails',
      eventTypes: [EventTypes.OrderPlaced],
      deferRetry: async (message) => {
        if (keepFails) {
          keepFails = false;
          throw new Error('connection terminated unexpectedly');
        }
        deferred.push(message.attempt);
      },
      handler: async () => {
        throw new Error('printer jammed');
      },
    });

    await bus.publish(orderPlaced());

    // Held as for an outage (no attempt counted), then failed again and kept this time.
    expect(deferred).toEqual([1]);
  });

  it('resolves publish at once when no queue is bound to the type', async () => {
    await bus.subscribe({
      queue: 'payments.x',
      eventTypes: [EventTypes.PaymentCaptured],
      handler: async () => undefined,
    });

    await expect(bus.publish(orderPlaced())).resolves.toBeUndefined();
  });

  it('rejects publishing something that is not a CloudEvent', async () => {
    await bus.subscribe({
      queue: 'orders.any',
      eventTypes: [EventTypes.OrderPlaced],
      handler: async () => undefined,
    });
    const broken = { ...orderPlaced(), specversion: '0.3' } as unknown as CloudEvent;

    await expect(bus.publish(broken)).rejects.toThrow('specversion');
  });

  it('rejects an unsettled publish when closed, so the outbox keeps the event', async () => {
    await bus.subscribe({
      queue: 'orders.retrying',
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [60_000] },
      handler: async () => {
        throw new Error('database down');
      },
    });
    const publishing = bus.publish(orderPlaced());
    const outcome = publishing.then(
      () => 'resolved',
      (error: Error) => error.name,
    );

    await new Promise((resolve) => setImmediate(resolve));
    await bus.close();

    expect(await outcome).toBe('BusClosedError');
  });

  it('waits for running handlers when a subscription is cancelled', async () => {
    let release!: () => void;
    let finished = false;
    const handle = await bus.subscribe({
      queue: 'orders.slow',
      eventTypes: [EventTypes.OrderPlaced],
      handler: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      },
    });
    void bus.publish(orderPlaced());
    await waitFor('the handler to start', () => release !== undefined);

    const cancelling = handle.cancel();
    release();
    await cancelling;

    expect(finished).toBe(true);
  });
});
