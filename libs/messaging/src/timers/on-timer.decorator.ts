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
