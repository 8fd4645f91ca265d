import { Inject, Injectable } from '@nestjs/common';
import { ALLOWED_ALGORITHMS, issuerOf, PERMISSION_NAMES } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';

/** OpenID Provider / RFC 8414 metadata of one tenant's issuer. */
@Injectable()
export class DiscoveryService {
  constructor(@Inject(AUTH_CONFIG) private readonly config: AuthConfig) {}

  document(tenantId: string) {
    const issuer = issuerOf(this.config.COMANDA_PUBLIC_URL, tenantId);
    return {
      issuer,
      token_endpoint: `${issuer}/connect/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: ['token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      token_endpoint_auth_signing_alg_values_supported: [...ALLOWED_ALGORITHMS],
      scopes_supported: PERMISSION_NAMES,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    };
  }
}
