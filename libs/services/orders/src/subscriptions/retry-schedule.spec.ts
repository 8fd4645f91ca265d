import { afterFailure, retryDelayMs, type RetryRules } from './retry-schedule';

const rules: RetryRules = {
  baseMs: 30_000,
  maxMs: 3_600_000,
  windowMs: 24 * 3_600_000,
  pauseAfterFailures: 30,
};
const now = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('webhook retry schedule', () => {
  it('doubles the delay after each failed attempt up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 40].map((n) => retryDelayMs(n, rules))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000,
    ]);
  });

  it('retries at now plus the delay while the window lasts', () => {
    expect(afterFailure(2, 2, now, later(rules.windowMs), rules)).toEqual({
      next: 'retry',
      at: later(60_000),
    });
  });

  it('gives up when the next attempt would fall after the window', () => {
    expect(afterFailure(3, 3, now, later(119_999), rules)).toEqual({ next: 'give_up' });
    expect(afterFailure(3, 3, now, later(120_000), rules)).toMatchObject({ next: 'retry' });
  });

  it('pauses the subscription once its consecutive failures reach the limit', () => {
    expect(afterFailure(1, 30, now, later(rules.windowMs), rules)).toEqual({
      next: 'pause_subscription',
    });
    expect(afterFailure(1, 29, now, later(rules.windowMs), rules)).toMatchObject({
      next: 'retry',
    });
  });

  it('keeps a delivery retried for about a day before the default pause', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed <= rules.windowMs) elapsed += retryDelayMs(++attempts, rules);
    expect(attempts).toBeGreaterThanOrEqual(rules.pauseAfterFailures - 3);
    expect(attempts).toBeLessThanOrEqual(rules.pauseAfterFailures + 3);
  });
});
