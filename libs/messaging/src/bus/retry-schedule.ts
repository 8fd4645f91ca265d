import type { RetryPolicy } from './message-bus';

/**
 * The delay before retrying a message whose handler failed on `attempt` (1-based), or
 * undefined when the policy is exhausted and the message goes to the dead-letter queue.
 */
export function retryDelayAfter(policy: RetryPolicy, attempt: number): number | undefined {
  return attempt <= policy.delaysMs.length ? policy.delaysMs[attempt - 1] : undefined;
}

export function assertRetryPolicy(policy: RetryPolicy): void {
  for (const delay of policy.delaysMs) {
    if (!Number.isInteger(delay) || delay < 0) {
      throw new RangeError(`retry delays must be non-negative integers (ms), got ${delay}`);
    }
  }
}

/** One line for logs and dead-letter headers; never a stack trace on the wire. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}
