export interface RetryRules {
  baseMs: number;
  maxMs: number;
  windowMs: number;
  pauseAfterFailures: number;
}

/** What follows a failed attempt. */
export type AfterFailure =
  { next: 'retry'; at: Date } | { next: 'give_up' } | { next: 'pause_subscription' };

/** Delay before attempt `failedAttempts + 1`: `base * 2^(failedAttempts-1)`, capped. */
export function retryDelayMs(failedAttempts: number, rules: RetryRules): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 30);
  return Math.min(rules.maxMs, rules.baseMs * 2 ** exponent);
}

/**
 * After the `failedAttempts`-th failed attempt of a delivery, with the subscription now at
 * `consecutiveFailures`: pause a subscription that keeps failing, give up on a delivery
 * whose next attempt would fall after its window, else retry later.
 */
export function afterFailure(
  failedAttempts: number,
  consecutiveFailures: number,
  now: Date,
  retryUntil: Date,
  rules: RetryRules,
): AfterFailure {
  if (consecutiveFailures >= rules.pauseAfterFailures) return { next: 'pause_subscription' };
  const at = new Date(now.getTime() + retryDelayMs(failedAttempts, rules));
  return at.getTime() > retryUntil.getTime() ? { next: 'give_up' } : { next: 'retry', at };
}
