// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Settings of the payments service, read once at boot from the runtime's environment snapshot. */
export class PaymentsConfig {
  /** How long the partner has to send the completion event of an operation (rule 3). */
  @IsInt()
  @Min(100)
  PAYMENT_OPERATION_TIMEOUT_MS: number = 60_000;

  /** How long a reservation lives after registration; capture is never tried after it. */
  @IsInt()
  @Min(1_000)
  RESERVATION_TTL_MS: number = 7 * 24 * 3_600_000;

  /** Delays before each capture retry after `capture_failed`; once used up, annulment at expiry. */
  @Matches(/^\d{1,10}(,\d{1,10}){0,49}$/, {
    message: 'CAPTURE_RETRY_DELAYS_MS must be a comma-separated list of milliseconds',
  })
  CAPTURE_RETRY_DELAYS_MS: string = '60000,300000,1800000,7200000,21600000,86400000';

  /**
   * Delays before each annulment retry after an annulment failed, was refused (400) or timed
   * out; a retry is never due at or after the reservation's end. `none`: no retries.
   */
  @Matches(/^(none|\d{1,10}(,\d{1,10}){0,49})$/, {
    message: 'ANNULMENT_RETRY_DELAYS_MS must be a comma-separated list of milliseconds, or none',
  })
  ANNULMENT_RETRY_DELAYS_MS: string = '60000,300000,1800000,7200000,21600000,86400000';

  /** How often the sender looks for operations to send (new ones and due retries). */
  @IsInt()
  @Min(10)
  PAYMENT_SEND_POLL_MS: number = 250;

  /** First back-off after a network error or 5xx; doubles per attempt up to the maximum. */
  @IsInt()
  @Min(10)
  PAYMENT_SEND_RETRY_BASE_MS: number = 500;

  @IsInt()
  @Min(10)
  PAYMENT_SEND_RETRY_MAX_MS: number = 15_000;

  /** Operations sent side by side, to all partners together; each holds one while it waits. */
  @IsInt()
  @Min(1)
  @Max(1_000)
  PAYMENT_SEND_CONCURRENCY: number = 64;

  /**
   * Of those, the most one partner address may hold: a partner that hangs, or answers slowly,
   * leaves the other slots to the other partners. Unset: a quarter of
   * PAYMENT_SEND_CONCURRENCY (16 of 64); never more than PAYMENT_SEND_CONCURRENCY.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000)
  PAYMENT_SEND_CONCURRENCY_PER_PARTNER?: number;

  /** One request to a partner, connect to last byte. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  PAYMENT_SEND_REQUEST_TIMEOUT_MS: number = 10_000;
}

/** A `*_RETRY_DELAYS_MS` list as milliseconds; `none` is no retries. */
export function retryDelaysMs(list: string): number[] {
  return list === 'none' ? [] : list.split(',').map(Number);
}
