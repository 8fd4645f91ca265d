import { waitFor } from '@comanda/testing';
import { PollingLoop } from './polling-loop';

describe('PollingLoop health', () => {
  it('turns unhealthy while a round is stuck past its limit, and healthy again once it ends', async () => {
    let release: () => void = () => undefined;
    let rounds = 0;
    const loop = new PollingLoop(
      10,
      () => {
        rounds += 1;
        // The second round hangs (a connection that never answers) until released.
        if (rounds === 2)
          return new Promise<boolean>((resolve) => (release = () => resolve(false)));
        return Promise.resolve(false);
      },
      () => undefined,
    );
    loop.start();
    try {
      await waitFor('the second round to start', () => rounds === 2);
      expect(loop.isHealthy(1_000)).toBe(true);
      await waitFor('the round to count as stuck', () => !loop.isHealthy(30));
      release();
      await waitFor('the loop to go on', () => rounds >= 3);
      expect(loop.isHealthy(30)).toBe(true);
    } finally {
      release();
      await loop.stop();
    }
  });

  it('is unhealthy after a failed round and once stopped', async () => {
    let fail = true;
    const loop = new PollingLoop(
      10,
      async () => {
        if (fail) throw new Error('database down');
        return false;
      },
      () => undefined,
    );
    loop.start();
    await waitFor('a failed round', () => !loop.isHealthy());
    fail = false;
    await waitFor('a good round', () => loop.isHealthy());
    await loop.stop();
    expect(loop.isHealthy()).toBe(false);
  });

  it('reports the first failed round of a streak, not every poll, and the recovery with the count', async () => {
    let fail = true;
    let rounds = 0;
    const reports: number[] = [];
    const recoveries: number[] = [];
    const loop = new PollingLoop(
      5,
      async () => {
        rounds += 1;
        if (fail) throw new Error('database down');
        return false;
      },
      (_error, failedRounds) => reports.push(failedRounds),
      (failedRounds) => recoveries.push(failedRounds),
    );
    loop.start();
    try {
      await waitFor('many failed rounds', () => rounds >= 20);
      expect(reports).toEqual([1]);
      fail = false;
      await waitFor('the recovery', () => recoveries.length === 1);
      expect(recoveries[0]).toBeGreaterThanOrEqual(20);
      fail = true;
      await waitFor('a new streak reported', () => reports.length === 2);
      expect(reports).toEqual([1, 1]);
    } finally {
      await loop.stop();
    }
  });
});
