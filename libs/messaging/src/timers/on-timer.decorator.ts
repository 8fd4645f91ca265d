import { SetMetadata } from '@nestjs/common';

export const ON_TIMER_METADATA = 'comanda:on-timer';

export interface OnTimerOptions {
  /**
   * The timer is a deadline for a report from outside (a POS's callback, a partner's event):
   * when it falls due while the service cannot reach its database, or was not running, it
   * fires `outageGraceMs` after the service is back at the earliest, so a report refused
   * meanwhile (503 + Retry-After) can be sent again and still count (docs/adr/0060).
   */
  graceAfterOutage?: boolean;
  /**
   * The name of a method of the same provider, `(payload, manager) => Promise<unknown>`, that
   * locks what the handler will change (its aggregate's row). The firing runs it first in its
   * transaction and marks the timer's row fired after it, so the aggregate is locked before the
   * timer's row, in the order the aggregate's other writers take them when they cancel or
   * schedule its timers. Without it the timer's row is locked first, and a writer that holds
   * the aggregate and then cancels the timer deadlocks with the firing (docs/adr/0061).
   */
  lockFirst?: string;
}

/** What `@OnTimer` records on the method. */
export interface OnTimerMetadata extends OnTimerOptions {
  name: string;
}

/**
 * Marks a provider method as the handler of the durable timers named `name`:
 * `(payload, manager, timer) => Promise<void>`. One handler per name per service.
 */
export function OnTimer(name: string, options: OnTimerOptions = {}): MethodDecorator {
  return SetMetadata(ON_TIMER_METADATA, { name, ...options } satisfies OnTimerMetadata);
}
