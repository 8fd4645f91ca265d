import { AUTH_BODY_LIMIT_BYTES } from '@comanda/contracts';
import type { ServiceDefinition } from '@comanda/runtime';
import { AuthConfig } from './auth.config';
import { AuthModule } from './auth.module';
import { ApiClient } from './clients/api-client.entity';
import { ClientSecret } from './clients/client-secret.entity';
import { SigningKey } from './keys/signing-key.entity';
import { CreateAuthTables1710000000000 } from './migrations/1710000000000-create-auth-tables.migration';
import { Tenant } from './tenants/tenant.entity';

export const AUTH_ENTITIES = [Tenant, ApiClient, ClientSecret, SigningKey];
export const AUTH_MIGRATIONS = [CreateAuthTables1710000000000];

/** Tenants, API clients, hashed secrets and signing keys; the OAuth token issuer; the admin API. */
export const authService: ServiceDefinition = {
  name: 'auth',
  configs: [AuthConfig],
  database: { schema: 'auth', entities: AUTH_ENTITIES, migrations: AUTH_MIGRATIONS },
  module: AuthModule,
  versionExemptPaths: ['/auth/', '/connect/', '/.well-known/'],
  // The gateway applies the same limit to auth's paths (see @comanda/contracts).
  bodyLimitBytes: AUTH_BODY_LIMIT_BYTES,
};
