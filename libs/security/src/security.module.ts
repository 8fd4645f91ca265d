import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule, ModuleRef } from '@nestjs/core';
import { AccessGuard } from './guards/access.guard';
import { AuthenticationBeforeBody } from './guards/authentication-before-body';
import { RouteDeclarationCheck } from './guards/route-declaration.check';
import { securitySettingsFrom, type EnvSnapshot, type SecuritySettings } from './security-settings';
import { BearerTokenVerifier } from './verification/bearer-token.verifier';
import { JWKS_SOURCE, type JwksSource } from './verification/jwks-source';

export interface SecurityModuleOptions {
  /** The RUNTIME_ENV snapshot: COMANDA_PUBLIC_URL, AUTH_URL, COMANDA_TOKEN_AUDIENCE, COMANDA_ENVIRONMENT. */
  env?: EnvSnapshot;
  /** Explicit settings; they win over `env`. */
  settings?: Partial<SecuritySettings>;
}

export const SECURITY_SETTINGS = Symbol('comanda.security.SETTINGS');

/**
 * Security of one service: bearer verification from the headers, before the body is read
 * (AuthenticationBeforeBody), the global guard (permissions) and the boot-time check that
 * every route is declared. Import it once per service. A provider of
 * `JWKS_SOURCE` anywhere in the service (the auth service has one) replaces the HTTP JWKS
 * fetch with in-process keys.
 */
@Module({})
export class SecurityModule {
  static forService(options: SecurityModuleOptions = {}): DynamicModule {
    const settings: SecuritySettings = {
      ...securitySettingsFrom(options.env ?? {}),
      ...options.settings,
    };
    return {
      module: SecurityModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: SECURITY_SETTINGS, useValue: settings },
        {
          provide: BearerTokenVerifier,
          inject: [ModuleRef],
          useFactory: (moduleRef: ModuleRef) =>
            new BearerTokenVerifier(settings, jwksSourceLookup(moduleRef)),
        },
        { provide: APP_GUARD, useClass: AccessGuard },
        RouteDeclarationCheck,
        AuthenticationBeforeBody,
      ],
      exports: [SECURITY_SETTINGS, BearerTokenVerifier],
    };
  }
}

/**
 * The service's own JWKS_SOURCE, when it has one, looked up on first use: the security
 * module is imported beside the service module, not inside it, so it cannot inject it.
 */
function jwksSourceLookup(moduleRef: ModuleRef): () => JwksSource | undefined {
  let resolved: JwksSource | null | undefined;
  return () => {
    if (resolved === undefined) {
      try {
        resolved = moduleRef.get<JwksSource>(JWKS_SOURCE, { strict: false });
      } catch {
        // No provider: this service fetches the auth service's JWKS over HTTP.
        resolved = null;
      }
    }
    return resolved ?? undefined;
  };
}
