// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

// `@Type(() => Number)`: environment values are strings, and class-transformer's implicit
// conversion needs a declared type that property initializers do not give.

/**
 * The gateway's own settings, read once from the RUNTIME_ENV snapshot. An upstream URL left
 * empty means that service is not deployed: its paths answer 404 instead of 502.
 */
export class GatewayConfig {
  @IsOptional()
  @IsUrl(URL_OPTIONS)
  AUTH_URL?: string = undefined;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  CONFIG_STORE_URL?: string = undefined;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  PLUGIN_REGISTRY_URL?: string = undefined;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  ORDERS_URL?: string = undefined;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  PAYMENTS_URL?: string = undefined;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  NOTIFICATIONS_URL?: string = undefined;

  /** Largest JSON (or form) request body, in bytes. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GATEWAY_BODY_LIMIT_BYTES = 1024 * 1024;

  /** Largest plugin code upload (`POST /frontend/plugins`), in bytes. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GATEWAY_PLUGIN_CODE_LIMIT_BYTES = 2 * 1024 * 1024;

  /** Requests a client (or, without a token, an IP address) may make per window. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GATEWAY_RATE_LIMIT_MAX = 1200;

  @Type(() => Number)
  @IsInt()
  @Min(100)
  GATEWAY_RATE_LIMIT_WINDOW_MS = 60_000;

  /** How long an upstream may take to send its response headers before the gateway answers 504. */
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(600_000)
  GATEWAY_UPSTREAM_TIMEOUT_MS = 30_000;

  /** Keep-alive connections per upstream. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1024)
  GATEWAY_UPSTREAM_CONNECTIONS = 64;
}
