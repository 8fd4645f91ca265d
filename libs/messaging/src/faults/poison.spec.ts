import { orderPlaced } from '../bus/message-bus.contract';
import { messagingOptions, SCHEMA } from '../outbox/test-support/messaging-test-env';
import { deadLetterQueueName } from '../rabbitmq/queue-names';
import { TimerService } from '../timers/timer.service';
import { CRASH_WORKER } from './test-support/crash-worker';
import { startCrashSuite, superviseUntil, type CrashSuite } from './test-support/worker-process';

jest.setTimeout(420_000);

describe('poison that ends the process (each replica its own process, RabbitMQ)', () => {
  let suite: CrashSuite;

  beforeAll(async () => {
    suite = await startCrashSuite('poison');
  });
  afterAll(async () => {
    await suite?.dispose();
  });

  it('parks a handler that always throws, one that kills the process and a timer that kills it, after N attempts; every other event and timer applies once', async () => {
    const timers = new TimerService(messagingOptions());
    await suite.observer.transaction(async (tx) => {
      for (const key of ['fine-1', 'exit-1', 'fine-2', 'fine-3']) {
        await timers.schedule(tx, { name: CRASH_WORKER.timerName, key, delayMs: 0, payload: {} });
      }
    });
    const fine = ['fine-a', 'fine-b', 'fine-c', 'fine-d'].map((s) => orderPlaced('tenant-a', s));
    const exit = orderPlaced('tenant-a', 'exit-x');
    const throws = orderPlaced('tenant-a', 'throw-y');
    for (const event of [fine[0], fine[1], exit, throws, fine[2], fine[3]]) {
      await suite.publisher.publish(event);
    }

    const effects = async (consumer: string) => {
      const rows: Array<{ event_id: string; n: number }> = await suite.observer.query(
        `SELECT event_id, count(*)::int AS n FROM "${SCHEMA}"."effects" WHERE consumer = $1 GROUP BY event_id`,
        [consumer],
      );
      return new Map(rows.map((row) => [row.event_id, row.n]));
    };
    const deadLetters = async () =>
      (await suite.observer.query(
        `SELECT event_id, error, attempts FROM "${SCHEMA}"."dead_letters" ORDER BY event_id`,
      )) as Array<{ event_id: string; error: string; attempts: number }>;
    const deadTimer = async () => {
      const [row] = await suite.observer.query(
        `SELECT attempts, last_error, dead_at FROM "${SCHEMA}"."timers" WHERE key = 'exit-1'`,
      );
      return row as { attempts: number; last_error: string; dead_at: Date | null };
    };
    const settled = async () =>
      (await effects('consumer')).size === fine.length &&
      (await effects('timer')).size === 3 &&
      (await deadLetters()).length === 2 &&
      (await deadTimer()).dead_at !== null;

    const restarts = await superviseUntil(suite.db, suite.broker, settled);

    expect(restarts).toBeGreaterThanOrEqual(CRASH_WORKER.maxDeliveries);
    const applied = await effects('consumer');
    for (const event of fine) expect(applied.get(event.id)).toBe(1);
    const fired = await effects('timer');
    for (const key of ['fine-1', 'fine-2', 'fine-3']) expect(fired.get(key)).toBe(1);
    expect(await deadLetters()).toEqual(
      [
        {
          event_id: exit.id,
          error: expect.stringContaining('the process ended while handling it'),
          attempts: CRASH_WORKER.maxDeliveries,
        },
        { event_id: throws.id, error: 'always fails', attempts: expect.any(Number) },
      ].sort((a, b) => a.event_id.localeCompare(b.event_id)),
    );
    expect(await deadTimer()).toMatchObject({
      attempts: CRASH_WORKER.timerMaxAttempts,
      last_error: 'the process ended while handling it',
    });
    expect(await suite.admin.messageCount(deadLetterQueueName(suite.queue))).toBe(0);
    // The replica is killed as soon as everything settled: a delivery it had handled but not
    // yet acknowledged goes back to the queue, marked redelivered, once. Nothing else may be
    // left there: no event nobody was given, and no second copy.
    const left: string[] = [];
    for (let message = await suite.admin.get(suite.queue); message;) {
      expect(message.fields.redelivered).toBe(true);
      left.push(String(message.properties.messageId));
      message = await suite.admin.get(suite.queue);
    }
    expect(new Set(left).size).toBe(left.length);
  });
});
