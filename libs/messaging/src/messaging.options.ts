/** How one service's outbox relay and timer poller behave; `forService` fills the defaults. */
export interface MessagingOptions {
  /** The service name: event source `/comanda/<service>`. */
  service: string;
  /** The service's Postgres schema, where its outbox, inbox and timers live. */
  schema: string;
  /** Fallback poll when no NOTIFY arrives (default 1000 ms). */
  relayPollMs?: number;
  /** How often due timers are looked for (default 1000 ms). */
  timerPollMs?: number;
  relay?: RelayTuning;
  timers?: TimerTuning;
  /**
   * Leave the outbox relay stopped at bootstrap; `MessagingLifecycle.startRelay()` starts it.
   * Standalone uses it so that every service has subscribed before any relay publishes.
   */
  deferRelayStart?: boolean;
}

export interface RelayTuning {
  /** @deprecated unused since one relay per schema is active (ADR 0009); kept for callers. */
  leaseMs?: number;
  /** @deprecated unused: see `batchSize`. */
  batchAggregates?: number;
  /** @deprecated unused: see `batchSize`. */
  batchPerAggregate?: number;
  /** Rows read and published per batch, in position order (default 500). */
  batchSize?: number;
  /** Failed publishes a row may have (outages not counted) before it is parked (default 10). */
  maxAttempts?: number;
  /** First retry delay after a failed publish, doubled per attempt (default 1 s). */
  retryBaseMs?: number;
  /** Longest retry delay (default 60 s). */
  retryMaxMs?: number;
  /**
   * When set, a publish not settled within this is counted as failed and retried. Off by
   * default: the bus bounds its own publish (RabbitMqBus waits for the confirm up to its
   * `publishTimeoutMs`), and the in-process bus legitimately resolves only once every
   * queue settled the message: handled once, or its retry or dead letter kept durably
   * (docs/adr/0032). Set, it is a lease on that handling: keep it above the longest one.
   */
  publishTimeoutMs?: number;
  /** Published rows are kept this long for inspection (default 7 days). */
  retentionMs?: number;
  /** How often published rows past retention are deleted, in batches until none is left (default 1 min). */
  cleanupEveryMs?: number;
  /**
   * Inbox marks are kept this long (default 30 days): far past any redelivery the broker or
   * the outbox can make, so a redelivered event still finds its mark.
   */
  inboxRetentionMs?: number;
}

export interface TimerTuning {
  /**
   * How long a claimed timer is reserved for one poller until its firing starts (default
   * 60 s; renewed when its attempt is counted). The firing holds the timer's row lock, so a
   * handler may run longer than this without being fired twice (docs/adr/0032); a firing that
   * waits longer than this for its `lockFirst` may lose the timer to another poller, which
   * then fires it once (docs/adr/0061).
   */
  leaseMs?: number;
  /** Due timers claimed per poll (default 20). */
  batchSize?: number;
  /** Attempts before a timer is marked dead (default 10). */
  maxAttempts?: number;
  /** First retry delay after a failing handler, doubled per attempt (default 1 s). */
  retryBaseMs?: number;
  /** Longest retry delay (default 5 min). */
  retryMaxMs?: number;
  /** Fired and dead timers are kept this long (default 7 days). */
  retentionMs?: number;
  /**
   * How long after the poller reaches its database again (after failed rounds, or at its
   * start) the deadlines marked `graceAfterOutage` that fell due meanwhile wait before they
   * fire (default 30 s; 0 turns the grace off). docs/adr/0060.
   */
  outageGraceMs?: number;
}

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Schema names end up inside SQL text; only plain identifiers are accepted. */
export function qualifiedTable(schema: string, table: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  return `"${schema}"."${table}"`;
}

/** Exponential back-off: `base * 2^(failures-1)`, capped. */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}
