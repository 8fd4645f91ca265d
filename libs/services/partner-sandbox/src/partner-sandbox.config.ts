// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';

/** Settings of the partner sandbox, read once at boot from the runtime's environment snapshot. */
export class PartnerSandboxConfig {
  /**
   * Secret of every merchant not configured with its own (`PUT /sandbox/merchants/{id}`):
   * operations must be signed with it, and events are. Give a merchant the same secret in
   * Comanda (`PUT /payments/merchants/{id}`).
   */
  @IsString()
  PARTNER_SANDBOX_SIGNING_SECRET: string = 'sandbox-signing-secret';

  /**
   * A merchant's notifications URL; `{merchantId}` is replaced. Events go to `<this>/events`.
   * Empty: `<COMANDA_PUBLIC_URL>/notifications/merchants/{merchantId}`.
   */
  @IsString()
  PARTNER_SANDBOX_NOTIFICATIONS_URL: string = '';

  /** Time between the 202 and the completion event (a token may set its own, `;delay=<ms>`). */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  PARTNER_SANDBOX_EVENT_DELAY_MS: number = 200;

  /** Waits before re-posting an event the receiver did not take (5xx, network), comma list. */
  @Matches(/^(\d+(,\d+)*)?$/, { message: 'a comma list of milliseconds' })
  PARTNER_SANDBOX_DELIVERY_RETRY_DELAYS_MS: string = '1000,5000,30000';

  /** Port of the sandbox when standalone mode starts it (`COMANDA_PARTNER_SANDBOX=1`). */
  @IsInt()
  @Min(0)
  @Max(65535)
  PARTNER_SANDBOX_PORT: number = 3100;

  @IsString()
  COMANDA_PUBLIC_URL: string = 'http://localhost:3000';
}

export function deliveryRetryDelays(config: PartnerSandboxConfig): number[] {
  const list = config.PARTNER_SANDBOX_DELIVERY_RETRY_DELAYS_MS;
  return list === '' ? [] : list.split(',').map(Number);
}

export function notificationsUrlTemplate(config: PartnerSandboxConfig): string {
  return (
    config.PARTNER_SANDBOX_NOTIFICATIONS_URL ||
    `${config.COMANDA_PUBLIC_URL.replace(/\/+$/, '')}/notifications/merchants/{merchantId}`
  );
}
