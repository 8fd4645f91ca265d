import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { waitFor } from '@comanda/testing';
import { orderPlaced } from '../bus/message-bus.contract';
import { OutboxWriter } from '../outbox/outbox.writer';
import { messagingOptions, SCHEMA } from '../outbox/test-support/messaging-test-env';
import { RETRY_TIMER, retryTimerKey } from '../retries/deferred-retries';
import { CRASH_WORKER } from './test-support/crash-worker';
import {
  startInProcessCrashSuite,
  startWorker,
  superviseUntil,
  type InProcessCrashSuite,
} from './test-support/worker-process';

jest.setTimeout(300_000);

const QUEUE = `${CRASH_WORKER.service}.${CRASH_WORKER.consumer}`;

/**
 * Standalone mode (one process, the in-process bus) killed with SIGKILL while a failed
 * message waits for its retry: the retry is a timer in the service's schema, so it is not
 * lost with the process, and the inbox applies the event once however often it comes back.
 */
describe('kill -9 of a standalone process while a retry is pending (in-process bus)', () => {
  let suite: InProcessCrashSuite;
  const writer = new OutboxWriter(messagingOptions());

  beforeAll(async () => {
    suite = await startInProcessCrashSuite('inproc-retries');
  });
  afterAll(async () => {
    await suite?.dispose();
  });

  /** The business transaction: its events are committed to the worker's outbox together. */
  const write = (subjects: string[]): Promise<CloudEvent[]> =>
    suite.observer.transaction(async (tx) => {
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
      return written;
    });
  const applied = async (events: CloudEvent[]) => {
    const rows: Array<{ event_id: string; n: number }> = await suite.observer.query(
      `SELECT event_id, count(*)::int AS n FROM "${SCHEMA}"."effects"
       WHERE consumer = 'consumer' AND event_id = ANY($1) GROUP BY event_id`,
      [events.map((event) => event.id)],
    );
    return new Map(rows.map((row) => [row.event_id, row.n]));
  };
  const unpublished = async (events: CloudEvent[]) =>
    (
      (await suite.observer.query(
        `SELECT count(*)::int AS n FROM "${SCHEMA}"."outbox"
         WHERE published_at IS NULL AND event_id = ANY($1)`,
        [events.map((event) => event.id)],
      )) as Array<{ n: number }>
    )[0].n;
  const retryTimer = async (event: CloudEvent) => {
    const [row] = (await suite.observer.query(
      `SELECT fired_at, dead_at, payload FROM "${SCHEMA}"."timers" WHERE name = $1 AND key = $2`,
      [RETRY_TIMER, retryTimerKey(QUEUE, event.id)],
    )) as Array<{
      fired_at: Date | null;
      dead_at: Date | null;
      payload: { attempt: number; lastError: string };
    }>;
    return row;
  };
  const pendingRetry = async (event: CloudEvent) => {
    const row = await retryTimer(event);
    return row !== undefined && row.fired_at === null && row.dead_at === null ? row : undefined;
  };
  const deadLetters = async (events: CloudEvent[]) =>
    (await suite.observer.query(
      `SELECT event_id, error, attempts FROM "${SCHEMA}"."dead_letters" WHERE event_id = ANY($1)`,
      [events.map((event) => event.id)],
    )) as Array<{ event_id: string; error: string; attempts: number }>;

  it('applies the event once after a restart when the process was killed while its retry waited, the outbox row already marked published', async () => {
    const [failing, ...fine] = await write(['fail-life1-a', 'fine-a1', 'fine-a2']);
    // Fails throughout the first life; each retry 2 s after the last, far from used up.
    const options = { retryDelaysMs: Array(10).fill(2_000), maxDeliveries: 20 };
    const first = startWorker(suite.db, undefined, { ...options, life: 1 });
    try {
      // The failed message settled as soon as its retry was kept: the relay marked every
      // row published while the retry still waits, and the other events were applied.
      await waitFor(
        'the other events applied and every row published while the retry waits',
        async () =>
          (await unpublished([failing, ...fine])) === 0 &&
          (await applied(fine)).size === fine.length &&
          (await pendingRetry(failing)),
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the replica said: ${first.output()}`);
      });
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(await first.exited).toMatch(/^exit SIGKILL/);
    expect((await applied([failing])).size).toBe(0);
    expect(await pendingRetry(failing)).toMatchObject({
      payload: { lastError: 'fails in the first life' },
    });

    const second = startWorker(suite.db, undefined, { ...options, life: 2 });
    try {
      await waitFor(
        'the retry to fire after the restart and apply the event',
        async () =>
          (await applied([failing])).size === 1 && Boolean((await retryTimer(failing))?.fired_at),
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the replica said: ${second.output()}`);
      });
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
    const counts = await applied([failing, ...fine]);
    for (const event of [failing, ...fine]) expect(counts.get(event.id)).toBe(1);
    expect(await deadLetters([failing, ...fine])).toEqual([]);
  });

  it('applies the event once when the process was killed right after keeping the retry, before the publish settled', async () => {
    const events = await write(['kill-after-defer-b', 'fine-b1', 'fine-b2']);
    const [killed] = events;
    const settled = async () =>
      (await applied(events)).size === events.length &&
      (await unpublished(events)) === 0 &&
      (await pendingRetry(killed)) === undefined;

    // The first life keeps the retry and dies before the relay marks the row: the next life
    // gets the event twice (published again, and the retry when due); the inbox applies it once.
    const restarts = await superviseUntil(suite.db, undefined, settled, {
      maxDeliveries: 10,
      timerMaxAttempts: 10,
      retryDelaysMs: [300],
      stuck: async () => {
        const parked = await deadLetters(events);
        return parked.length > 0 ? `parked ${JSON.stringify(parked)}` : undefined;
      },
      explain: async () => ({
        applied: Object.fromEntries(await applied(events)),
        unpublished: await unpublished(events),
        retry: await retryTimer(killed),
      }),
    });

    expect(restarts).toBe(1);
    expect(
      await suite.observer.query(`SELECT 1 FROM "${SCHEMA}"."kills" WHERE name = $1`, [
        killed.subject,
      ]),
    ).toHaveLength(1);
    const counts = await applied(events);
    for (const event of events) expect(counts.get(event.id)).toBe(1);
  });

  it('parks a message whose retries are used up in dead_letters, where it outlives the process', async () => {
    const events = await write(['throw-c', 'fine-c1']);
    const [broken, fine] = events;
    const retryDelaysMs = [100, 100];
    const worker = startWorker(suite.db, undefined, { retryDelaysMs, maxDeliveries: 10 });
    try {
      await waitFor(
        'the message parked and the other one applied',
        async () =>
          (await deadLetters([broken])).length === 1 && (await applied([fine])).size === 1,
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the replica said: ${worker.output()}`);
      });
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }

    expect(await deadLetters([broken])).toEqual([
      { event_id: broken.id, error: 'always fails', attempts: retryDelaysMs.length + 1 },
    ]);
    expect(await pendingRetry(broken)).toBeUndefined();
    expect(await unpublished(events)).toBe(0);
    expect((await applied([broken])).size).toBe(0);
  });
});
