import { WakeableSleep } from '../polling/wakeable-sleep';

/**
 * A consumer's pause while its infrastructure is down: waits with growing steps until the
 * probe answers (or, without a probe, one step), and can be cut short when the consumer is
 * cancelled. No attempt is counted while paused: the paused message is handed back as is.
 */
export class OutagePause {
  private readonly sleeper = new WakeableSleep();
  private active?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly probe: (() => Promise<void>) | undefined,
    private readonly firstStepMs = 250,
    private readonly maxStepMs = 5_000,
  ) {}

  get paused(): boolean {
    return this.active !== undefined;
  }

  /** Starts a pause (once, however many deliveries failed), resolving when it is over. */
  begin(): Promise<void> {
    this.active ??= this.waitForRecovery().finally(() => (this.active = undefined));
    return this.active;
  }

  /** Ends any pause now (the consumer is going away). */
  stop(): void {
    this.stopped = true;
    this.sleeper.wake();
  }

  private async waitForRecovery(): Promise<void> {
    let stepMs = this.firstStepMs;
    while (!this.stopped) {
      await this.sleeper.sleep(stepMs);
      if (this.stopped) return;
      if (!this.probe) return;
      try {
        await this.probe();
        return;
      } catch {
        stepMs = Math.min(this.maxStepMs, stepMs * 2);
      }
    }
  }
}
