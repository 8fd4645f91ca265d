// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { IsIn, IsInt, Max, Min } from 'class-validator';

/** Settings of webhook deliveries, read once at boot from the runtime's environment snapshot. */
export class WebhooksConfig {
  /** `production` refuses non-https URLs and non-public addresses (at save and at connect). */
  @IsIn(['test', 'production'])
  COMANDA_ENVIRONMENT: 'test' | 'production' = 'test';

  /** First retry delay after a failed attempt, doubled per attempt. */
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_BASE_MS: number = 30_000;

  /** Longest delay between two attempts. */
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_MAX_MS: number = 3_600_000;

  /** How long a delivery is retried after it was created (or redelivered). */
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_WINDOW_MS: number = 24 * 3_600_000;

  /**
   * One attempt, connect to last byte. The attempt holds no database connection meanwhile
   * (ADR 0043); its lease is this plus 5 s.
   */
  @IsInt()
  @Min(100)
  @Max(30_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /**
   * Attempts in flight at once per replica. Each waits for its endpoint in a slot of its own,
   * and a subscription has at most one attempt in flight, so an endpoint that hangs holds
   * one slot, never another subscription's deliveries.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_SEND_CONCURRENCY: number = 32;

  /** How often due deliveries are looked for when no slot came free meanwhile. */
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_SEND_POLL_MS: number = 1_000;

  /** Consecutive failed attempts (any delivery) after which a subscription is paused: about one day of failures. */
  @IsInt()
  @Min(1)
  WEBHOOK_PAUSE_AFTER_FAILURES: number = 30;

  /** Finished deliveries (succeeded, failed, paused) are deleted after this (default 30 days). */
  @IsInt()
  @Min(3_600_000)
  WEBHOOK_DELIVERY_RETENTION_MS: number = 30 * 24 * 3_600_000;

  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: number = 20;
}
