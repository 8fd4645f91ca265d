// Decorator metadata drives the conversion of environment strings: load the polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

/**
 * Settings of the auth service, read once at boot from the runtime's environment snapshot.
 * Numbers carry `@Type(() => Number)`: environment values are strings.
 */
export class AuthConfig {
  @IsIn(['test', 'production'])
  COMANDA_ENVIRONMENT: 'test' | 'production' = 'test';

  /** Issuers are `${COMANDA_PUBLIC_URL}/auth/${tenantId}`, on whichever host a token is asked for. */
  @IsUrl({ require_tld: false, require_protocol: true })
  COMANDA_PUBLIC_URL = 'http://localhost:3000';

  @IsString()
  @MinLength(1)
  COMANDA_TOKEN_AUDIENCE = 'comanda-api';

  @IsInt()
  @Min(60)
  @Max(86400)
  @Type(() => Number)
  TOKEN_LIFETIME_SECONDS = 3600;

  /** 32 bytes, base64 or base64url: encrypts signing keys at rest. Required (standalone makes one). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/_-]{43}=?$/, {
    message: 'AUTH_KEY_ENCRYPTION_KEY must be 32 bytes in base64',
  })
  AUTH_KEY_ENCRYPTION_KEY?: string;

  /** Key of the HMAC that hashes client secrets. Required in production. */
  @IsOptional()
  @IsString()
  @MinLength(32)
  AUTH_SECRET_PEPPER?: string;

  /** A former AUTH_KEY_ENCRYPTION_KEY: signing keys still sealed with it are re-sealed at start. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/_-]{43}=?$/, {
    message: 'AUTH_PREVIOUS_KEY_ENCRYPTION_KEY must be 32 bytes in base64',
  })
  AUTH_PREVIOUS_KEY_ENCRYPTION_KEY?: string;

  /** A former AUTH_SECRET_PEPPER: secrets hashed with it still verify. */
  @IsOptional()
  @IsString()
  @MinLength(32)
  AUTH_PREVIOUS_SECRET_PEPPER?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[^:\s]{3,128}$/, {
    message: 'COMANDA_ADMIN_CLIENT_ID must be 3-128 characters without ":" or spaces',
  })
  COMANDA_ADMIN_CLIENT_ID = 'platform-admin';

  @IsOptional()
  @IsString()
  @MinLength(32)
  COMANDA_ADMIN_CLIENT_SECRET?: string;

  /** Failed client authentications are counted over this window... */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  AUTH_FAILURE_WINDOW_SECONDS = 60;

  /** ...and refused with 429 from this many failures of one client id from one address... */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  AUTH_FAILURE_LIMIT = 10;

  /** ...while one address's failures (any client ids) past this many only slow it down. */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  AUTH_FAILURE_LIMIT_PER_IP = 100;

  /** From this many failures on, each answer is delayed a little more. */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  AUTH_FAILURE_SLOWDOWN_AFTER = 5;
}

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');
