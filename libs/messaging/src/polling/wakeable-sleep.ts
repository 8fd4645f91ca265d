/**
 * A poll interval that a notification can cut short. A wake-up that arrives while no one
 * sleeps is remembered, so work signalled during a batch is picked up right after it.
 */
export class WakeableSleep {
  private pending = false;
  private wakeSleeper?: () => void;

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }

  wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.pending = true;
  }
}
