/**
 * When this process last could not reach its message broker, for the grace of ADR 0060: a
 * partner's event stored in time but carried to this process by the broker reaches it only
 * once the broker is back, and its deadline must not fire before it could have (ADR 0068).
 * Buses of the process note their connection lost and back; the timer poller reads it.
 */
const down = new Set<object>();
let backAt: number | undefined;

/** `bus` lost its connection (or could not open it). */
export function noteBrokerDown(bus: object): void {
  down.add(bus);
}

/** `bus` is connected again: its trouble, if any, ended now. */
export function noteBrokerUp(bus: object, at: number = Date.now()): void {
  if (down.delete(bus)) backAt = at;
}

/** `bus` closed: it waits for no broker any more. */
export function forgetBroker(bus: object): void {
  down.delete(bus);
}

/** Now while a bus of the process is without its broker; else when the last one got it back. */
export function lastBrokerTroubleAt(now: number = Date.now()): number | undefined {
  return down.size > 0 ? now : backAt;
}
