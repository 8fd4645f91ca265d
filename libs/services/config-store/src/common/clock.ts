/** Time source of the config store; tests freeze it to make rows share a timestamp. */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };
