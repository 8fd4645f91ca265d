import type { EntityManager } from 'typeorm';

export type TimerPayload = Record<string, unknown>;

export interface TimerSchedule<P extends TimerPayload = TimerPayload> {
  /** What kind of timer, e.g. `placement-timeout`: the `@OnTimer` handler that runs it. */
  name: string;
  /** Which one, e.g. the order id; name + key identify a timer. */
  key: string;
  fireAt: Date;
  payload: P;
}

/** The timer as its handler sees it. */
export interface FiredTimer<P extends TimerPayload = TimerPayload> {
  name: string;
  key: string;
  /** The deadline it was scheduled for (the handler may run later). */
  fireAt: Date;
  payload: P;
  /** 1 on the first try, incremented by every retry. */
  attempt: number;
}

/**
 * Runs in a transaction that also marks the timer fired: its writes (through `manager`)
 * and the mark commit together, or neither does and the timer is retried.
 */
export type TimerHandler<P extends TimerPayload = TimerPayload> = (
  payload: P,
  manager: EntityManager,
  timer: FiredTimer<P>,
) => Promise<void>;
