import { PollingLoop, type LoopState } from './polling-loop';

export interface ConcurrentWorkOptions<T> {
  /** Items running at once, at most. */
  concurrency: number;
  /** Items claimed in one look, at most (also bounded by the free slots). */
  claimBatch: number;
  /** How often to look when nothing was claimed and no item ended. */
  pollMs: number;
  /** Claims up to `limit` items (with a lease, so replicas share them). */
  claim: (limit: number) => Promise<readonly T[]>;
  /**
   * Runs one claimed item. A rejection goes to `onError`; the item's lease runs out. The
   * signal aborts when the work stops: end at once, recording nothing (the lease runs out
   * and the item is claimed again).
   */
  run: (item: T, stopping: AbortSignal) => Promise<void>;
  /**
   * A failed look (no item: the first of a streak, then at most one per
   * REPEATED_FAILURE_REPORT_MS, with `failedLooks` in a row so far), or a failed item.
   */
  onError: (error: unknown, item?: T, failedLooks?: number) => void;
}

/**
 * Claimed items run side by side, up to a number of slots, on a `PollingLoop`: a look claims
 * as many items as there are free slots and starts them without waiting for them; an item
 * that ends frees its slot and wakes the loop. For work that waits on someone else (posts to
 * partners and webhook endpoints): one that hangs holds its own slot, never the others.
 */
export class ConcurrentWork<T> {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly loop: PollingLoop;

  constructor(private readonly options: ConcurrentWorkOptions<T>) {
    this.loop = new PollingLoop(
      options.pollMs,
      async () => (await this.claimOnce()) > 0 && this.freeSlots() > 0,
      (error, failedLooks) => options.onError(error, undefined, failedLooks),
    );
  }

  start(): void {
    this.loop.start();
  }

  /**
   * Stops looking, aborts the items still running (a post that hangs must not hold the
   * process past its shutdown deadline) and waits for them to end.
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.stopping.abort();
    await this.idle();
  }

  state(stuckAfterMs?: number): LoopState {
    return this.loop.state(stuckAfterMs);
  }

  /** Claims items for the free slots and starts them; answers how many it claimed. */
  async claimOnce(): Promise<number> {
    const limit = Math.min(this.options.claimBatch, this.freeSlots());
    if (limit <= 0) return 0;
    const items = await this.options.claim(limit);
    for (const item of items) {
      const run: Promise<void> = this.options
        .run(item, this.stopping.signal)
        .catch((error: unknown) => this.options.onError(error, item))
        .finally(() => {
          this.running.delete(run);
          this.loop.wake();
        });
      this.running.add(run);
    }
    return items.length;
  }

  /** Resolves once no item is running (items started meanwhile included). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private freeSlots(): number {
    return this.options.concurrency - this.running.size;
  }
}
