/**
 * Polls `probe` until it returns a value other than undefined/false, or fails with the
 * description after `timeoutMs`. For asynchronous outcomes (a message consumed, a timer
 * fired); never a fixed sleep standing in for an assertion.
 */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 15_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
