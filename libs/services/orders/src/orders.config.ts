// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';

/** Settings of the orders service, read once at boot from the runtime's environment snapshot. */
export class OrdersConfig {
  /** From the first placement session start until the order fails with `placement.timeout`. */
  @IsInt()
  @Min(1)
  @Max(24 * 60 * 60 * 1000)
  PLACEMENT_TIMEOUT_MS: number = 180_000;

  /** From the order being ready until it fails with `placement.not_picked_up` when no POS started a session. */
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 60 * 60 * 1000)
  PLACEMENT_PICKUP_TIMEOUT_MS: number = 15 * 60 * 1000;

  /** `smtp://user:pass@host:port`: confirmation e-mails go out by SMTP; empty: only stored. */
  @IsString()
  @MaxLength(2000)
  SMTP_URL: string = '';

  @IsString()
  @MaxLength(320)
  MAIL_FROM: string = 'Comanda <orders@comanda.invalid>';
}
