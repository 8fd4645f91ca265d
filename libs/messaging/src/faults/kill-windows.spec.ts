import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { orderPlaced } from '../bus/message-bus.contract';
import { OutboxWriter } from '../outbox/outbox.writer';
import { messagingOptions, SCHEMA } from '../outbox/test-support/messaging-test-env';
import { TimerService } from '../timers/timer.service';
import { CRASH_WORKER } from './test-support/crash-worker';
import { startCrashSuite, superviseUntil, type CrashSuite } from './test-support/worker-process';

jest.setTimeout(420_000);

describe('kill -9 at every window of the outbox, the consumer and a timer (RabbitMQ)', () => {
  let suite: CrashSuite;

  beforeAll(async () => {
    suite = await startCrashSuite('kill-windows');
  });
  afterAll(async () => {
    await suite?.dispose();
  });

  it('applies every event exactly once and fires every timer once, whichever window the process died in', async () => {
    const writer = new OutboxWriter(messagingOptions());
    const timers = new TimerService(messagingOptions());
    const subjects = [
      'kill-before-publish-1', // after the business commit, before the relay's publish
      'kill-after-publish-1', // after the broker's confirm, before the outbox mark
      'kill-after-commit-1', // after the consumer's commit, before its ack
      'fine-1',
      'fine-2',
    ];
    const timerKeys = ['kill-in-timer-1', 'fine-timer-1'];
    // The business transactions: state change, events and timers commit together.
    const events: CloudEvent[] = await suite.observer.transaction(async (tx) => {
      const written: CloudEvent[] = [];
      for (const subject of subjects) {
        written.push(
          await writer.add(tx, {
            type: EventTypes.OrderPlaced,
            tenantId: 'tenant-a',
            subject,
            data: orderPlaced('tenant-a', subject).data as never,
          }),
        );
      }
      for (const key of timerKeys) {
        await timers.schedule(tx, { name: CRASH_WORKER.timerName, key, delayMs: 0, payload: {} });
      }
      return written;
    });

    const count = async (consumer: string) => {
      const rows: Array<{ event_id: string; n: number }> = await suite.observer.query(
        `SELECT event_id, count(*)::int AS n FROM "${SCHEMA}"."effects" WHERE consumer = $1 GROUP BY event_id`,
        [consumer],
      );
      return new Map(rows.map((row) => [row.event_id, row.n]));
    };
    const windows = [...subjects, ...timerKeys].filter((name) => name.startsWith('kill-')).length;
    const settled = async () => {
      const [outbox] = await suite.observer.query(
        `SELECT count(*)::int AS n FROM "${SCHEMA}"."outbox" WHERE published_at IS NULL`,
      );
      const [killed] = await suite.observer.query(
        `SELECT count(*)::int AS n FROM "${SCHEMA}"."kills"`,
      );
      return (
        // A window another death beat to it (the relay's kill landing between the consumer's
        // commit and its own) is reached again when the message comes back: not settled
        // until every window has had its death.
        (killed as { n: number }).n === windows &&
        (await count('consumer')).size === events.length &&
        (await count('timer')).size === timerKeys.length &&
        (outbox as { n: number }).n === 0
      );
    };

    // Every death counts a delivery (an attempt) against each message (timer) in handling at
    // that moment, whatever killed the process (here the relay, the consumer and the timer
    // each kill it once): the budgets are the services' defaults, not the poison test's small
    // ones, so four deaths in a row park nothing that is not poison.
    await superviseUntil(suite.db, suite.broker, settled, {
      maxDeliveries: 10,
      timerMaxAttempts: 10,
      stuck: async () => {
        const parked: unknown[] = await suite.observer.query(
          `SELECT event_id AS what, error FROM "${SCHEMA}"."dead_letters"
           UNION ALL SELECT key, last_error FROM "${SCHEMA}"."timers" WHERE dead_at IS NOT NULL`,
        );
        return parked.length > 0 ? `parked ${JSON.stringify(parked)}` : undefined;
      },
      explain: async () => ({
        applied: Object.fromEntries(await count('consumer')),
        fired: Object.fromEntries(await count('timer')),
        kills: await suite.observer.query(`SELECT name FROM "${SCHEMA}"."kills"`),
        outbox: await suite.observer.query(
          `SELECT subject, published_at FROM "${SCHEMA}"."outbox" WHERE published_at IS NULL`,
        ),
        timers: await suite.observer.query(`SELECT * FROM "${SCHEMA}"."timers"`),
        deliveries: await suite.observer.query(`SELECT * FROM "${SCHEMA}"."deliveries"`),
        ready: await suite.admin.messageCount(suite.queue).catch(String),
      }),
    });

    const kills: Array<{ name: string }> = await suite.observer.query(
      `SELECT name FROM "${SCHEMA}"."kills" ORDER BY name`,
    );
    expect(kills.map((kill) => kill.name)).toEqual([
      'kill-after-commit-1',
      'kill-after-publish-1',
      'kill-before-publish-1',
      'kill-in-timer-1',
    ]);
    // Every window was reached once and the process was SIGKILLed right there (two windows
    // reached at the same moment share one death).
    const applied = await count('consumer');
    for (const event of events) expect(applied.get(event.id)).toBe(1);
    const fired = await count('timer');
    for (const key of timerKeys) expect(fired.get(key)).toBe(1);
    expect(
      await suite.observer.query(
        `SELECT key FROM "${SCHEMA}"."timers" WHERE fired_at IS NULL OR dead_at IS NOT NULL`,
      ),
    ).toEqual([]);
    expect(await suite.observer.query(`SELECT 1 FROM "${SCHEMA}"."dead_letters"`)).toEqual([]);
    // (Duplicates the last replica still held when it was killed go back to the queue; the
    // inbox skips them whenever they are delivered.)
  });
});
