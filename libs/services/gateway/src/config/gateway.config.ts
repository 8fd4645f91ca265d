// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { AUTH_BODY_LIMIT_BYTES } from '@comanda/contracts';

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

  /** The auth service's body limit: the gateway applies it to auth's paths. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GATEWAY_AUTH_BODY_LIMIT_BYTES = AUTH_BODY_LIMIT_BYTES;

  /**
   * Proxies in front of the gateway whose `X-Forwarded-For` counts (addresses or CIDRs,
   * comma-separated). Empty: the socket's peer is the client, whatever the header says.
   */
  @IsOptional()
  @IsString()
  TRUSTED_PROXIES?: string = undefined;

  /**
   * Verify bearer tokens at the gateway (default): requests without a valid token are refused
   * from their headers, and rate limits count per verified client. The services verify again.
   */
  @IsIn(['true', 'false'])
  GATEWAY_VERIFY_TOKENS: 'true' | 'false' = 'true';

  /** Requests a verified client (or, without a valid token, an address) may make per window. */
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

  /**
   * Connections per upstream; 0: as many as requests in flight. A fixed pool lets a few
   * clients that send their bodies slowly hold every connection and stall everyone else;
   * without one, each slow request costs only its own socket, bounded by the services'
   * request timeout and the gateway's connections-per-address cap.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100_000)
  GATEWAY_UPSTREAM_CONNECTIONS = 0;

  /**
   * `true` (default): an upstream served by this same process (standalone mode) serves the
   * request on the gateway's own request and response (ADR 0036), or, for a chunked body,
   * over an in-process connection instead of loopback TCP (ADR 0035). `false`: always over
   * the network.
   */
  @IsIn(['true', 'false'])
  GATEWAY_IN_PROCESS_UPSTREAMS: 'true' | 'false' = 'true';
}
