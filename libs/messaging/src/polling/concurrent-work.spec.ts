import { waitFor } from '@comanda/testing';
import { ConcurrentWork } from './concurrent-work';

/** A queue of items, claimed in order, and a gate per item that ends it when opened. */
function workQueue(items: string[]) {
  const queue = [...items];
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  return {
    started,
    claim: async (limit: number) => queue.splice(0, limit),
    run: (item: string) => {
      started.push(item);
      return new Promise<void>((resolve) => gates.set(item, resolve));
    },
    finish: (item: string) => gates.get(item)?.(),
    push: (...more: string[]) => queue.push(...more),
  };
}

describe('ConcurrentWork', () => {
  const LONG_POLL_MS = 60_000;

  it('runs claimed items side by side up to its slots, and one that never ends holds only its own', async () => {
    const work = workQueue(['hangs', 'a', 'b', 'c', 'd']);
    const pool = new ConcurrentWork({
      concurrency: 3,
      claimBatch: 16,
      pollMs: LONG_POLL_MS,
      claim: work.claim,
      run: work.run,
      onError: () => undefined,
    });
    pool.start();
    try {
      await waitFor('three items running', () => work.started.length === 3);
      expect(work.started).toEqual(['hangs', 'a', 'b']);
      // Each item that ends frees its slot and the next is claimed at once, not a poll later.
      work.finish('a');
      await waitFor('c started', () => work.started.includes('c'));
      work.finish('b');
      await waitFor('d started', () => work.started.includes('d'));
      work.finish('c');
      work.finish('d');
      // Only the item that never ends is left: a look claims what is queued for the free slots.
      work.push('e');
      await waitFor('e claimed by a look after a freed slot, or by hand', async () =>
        work.started.includes('e') ? true : (await pool.claimOnce()) === 1,
      );
      work.finish('e');
    } finally {
      work.finish('hangs');
      await pool.stop();
    }
  });

  it('hands a failed item to onError with the item, and stops only once running items end', async () => {
    const errors: Array<[string, string | undefined]> = [];
    let release: () => void = () => undefined;
    const pool = new ConcurrentWork<string>({
      concurrency: 2,
      claimBatch: 2,
      pollMs: LONG_POLL_MS,
      claim: async () => ['fails', 'slow'],
      run: async (item) => {
        if (item === 'fails') throw new Error('it failed');
        await new Promise<void>((resolve) => (release = resolve));
      },
      onError: (error, item) => errors.push([(error as Error).message, item]),
    });
    expect(await pool.claimOnce()).toBe(2);
    await waitFor('the failure reported', () => errors.length === 1);
    expect(errors).toEqual([['it failed', 'fails']]);
    let stopped = false;
    const stopping = pool.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('aborts the items still running when it stops, so one that hangs does not hold the stop', async () => {
    let aborted = false;
    const pool = new ConcurrentWork<string>({
      concurrency: 1,
      claimBatch: 1,
      pollMs: LONG_POLL_MS,
      claim: async () => ['hangs'],
      // Ends only when told to stop, as a post does when its signal aborts.
      run: (_item, stopping) =>
        new Promise<void>((resolve) =>
          stopping.addEventListener('abort', () => {
            aborted = true;
            resolve();
          }),
        ),
      onError: () => undefined,
    });
    expect(await pool.claimOnce()).toBe(1);
    await pool.stop();
    expect(aborted).toBe(true);
  });
});
