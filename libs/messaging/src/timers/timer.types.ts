import type { EntityManager } from 'typeorm';

export type TimerPayload = Record<string, unknown>;

interface TimerScheduleBase<P extends TimerPayload> {
  /** What kind of timer, e.g. `placement-timeout`: the `@OnTimer` handler that runs it. */
  name: string;
  /** Which one, e.g. the order id; name + key identify a timer. */
  key: string;
  payload: P;
}

/**
 * When a timer fires: `delayMs` from now by the database's clock (prefer it: a node whose
 * clock is off still fires on time), or at an absolute `fireAt`.
 */
export type TimerSchedule<P extends TimerPayload = TimerPayload> = TimerScheduleBase<P> &
  ({ delayMs: number; fireAt?: never } | { fireAt: Date; delayMs?: never });

/** A timer that has not fired yet, as its service sees it. */
export interface PendingTimer {
  /** The deadline it was scheduled for. */
  fireAt: Date;
  /**
   * When it will be tried: its deadline, or later when it was held back for a grace after an
   * outage (docs/adr/0060) or after a failed attempt.
   */
  nextAttemptAt: Date;
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

/**
 * Locks what a timer's handler will change, in the firing's transaction, before the timer's
 * row is marked fired (`@OnTimer`'s `lockFirst`, docs/adr/0061).
 */
export type TimerLock<P extends TimerPayload = TimerPayload> = (
  payload: P,
  manager: EntityManager,
) => Promise<unknown>;
