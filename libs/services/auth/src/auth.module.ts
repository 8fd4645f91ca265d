import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_ENV, type RuntimeEnv } from '@comanda/runtime';
import { JWKS_SOURCE } from '@comanda/security';
import { PermissionsController } from './admin/permissions.controller';
import { AuthBootstrap } from './auth.bootstrap';
import { AUTH_CONFIG, AuthConfig } from './auth.config';
import { ClientService } from './clients/client.service';
import { ClientsController } from './clients/clients.controller';
import { keyMaterialProviders } from './crypto/key-material.provider';
import { KeysController } from './keys/keys.controller';
import { SigningKeyResealing } from './keys/signing-key-resealing';
import { SigningKeyService } from './keys/signing-key.service';
import { TenantService } from './tenants/tenant.service';
import { TenantsController } from './tenants/tenants.controller';
import { DiscoveryService } from './token/discovery.service';
import { FailedAttemptsService } from './token/failed-attempts.service';
import { TokenController } from './token/token.controller';
import { TokenService } from './token/token.service';

@Module({
  controllers: [
    TokenController,
    TenantsController,
    ClientsController,
    PermissionsController,
    KeysController,
  ],
  providers: [
    {
      provide: AUTH_CONFIG,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(AuthConfig, env),
    },
    ...keyMaterialProviders,
    SigningKeyService,
    SigningKeyResealing,
    // The security guard of this service verifies tokens against these keys in process.
    { provide: JWKS_SOURCE, useExisting: SigningKeyService },
    TenantService,
    ClientService,
    FailedAttemptsService,
    TokenService,
    DiscoveryService,
    AuthBootstrap,
  ],
})
export class AuthModule {}
