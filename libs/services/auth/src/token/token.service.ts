import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { DataSource } from 'typeorm';
import { ACCESS_TOKEN_TYPE, issuerOf } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import { ApiClient } from '../clients/api-client.entity';
import { ClientSecret } from '../clients/client-secret.entity';
import { SecretHasher } from '../crypto/secret-hasher';
import { SigningKeyService } from '../keys/signing-key.service';
import { FailedAttemptsService } from './failed-attempts.service';
import { OAuthError } from './oauth.error';
import type { TokenRequest } from './token-request';

/** The token response of the spec, exactly. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

const AUTHENTICATION_FAILED = 'Client authentication failed.';

@Injectable()
export class TokenService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SigningKeyService,
    private readonly hasher: SecretHasher,
    private readonly attempts: FailedAttemptsService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  /** Client credentials grant for `tenantId` (which exists). */
  async issue(tenantId: string, request: TokenRequest, sourceIp: string): Promise<TokenResponse> {
    const subjects = { clientId: request.clientId, sourceIp };
    await this.attempts.assertAllowed(subjects);
    const client = await this.authenticate(request);
    if (!client) {
      await this.attempts.recordFailure(subjects);
      throw new OAuthError('invalid_client', AUTHENTICATION_FAILED, {
        basicAuthUsed: request.basicAuthUsed,
      });
    }
    await this.attempts.recordSuccess(client.clientId);

    // The caller proved it holds the secret: from here on, say plainly what is wrong.
    if (client.revoked) {
      throw new OAuthError('invalid_client', 'The client is revoked.', {
        basicAuthUsed: request.basicAuthUsed,
      });
    }
    if (client.environment !== this.config.COMANDA_ENVIRONMENT) {
      throw new OAuthError(
        'invalid_client',
        `The client belongs to the ${client.environment} environment; this is the ${this.config.COMANDA_ENVIRONMENT} environment.`,
        { basicAuthUsed: request.basicAuthUsed },
      );
    }
    if (!client.tenantIds.includes(tenantId)) {
      throw new OAuthError(
        'unauthorized_client',
        `The client is not granted tenant "${tenantId}".`,
      );
    }
    const granted = new Set<string>(client.permissions);
    const scopes = request.scopes ?? [...granted];
    const refused = scopes.filter((scope) => !granted.has(scope));
    if (refused.length > 0) {
      throw new OAuthError('invalid_scope', `Not granted to this client: ${refused.join(' ')}.`);
    }
    const scope = [...new Set(scopes)].sort().join(' ');
    return {
      access_token: await this.sign(client, tenantId, scope),
      expires_in: this.config.TOKEN_LIFETIME_SECONDS,
      token_type: 'Bearer',
      scope,
    };
  }

  private async authenticate(request: TokenRequest): Promise<ApiClient | undefined> {
    const client = await this.dataSource
      .getRepository(ApiClient)
      .findOneBy({ clientId: request.clientId });
    if (!client) return undefined;
    const secrets = await this.dataSource
      .getRepository(ClientSecret)
      .createQueryBuilder('secret')
      .where('secret.client_id = :clientId', { clientId: client.clientId })
      .andWhere('(secret.expires_at IS NULL OR secret.expires_at > now())')
      .getMany();
    // Every stored secret is compared, so the time taken does not tell which one matched.
    const matches = secrets.map((secret) =>
      this.hasher.matches(request.clientSecret, secret.secretHash),
    );
    return matches.includes(true) ? client : undefined;
  }

  private async sign(client: ApiClient, tenantId: string, scope: string): Promise<string> {
    const key = await this.keys.current();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      client_id: client.clientId,
      scope,
      tid: tenantId,
      env: client.environment,
    })
      .setProtectedHeader({ alg: key.algorithm, typ: ACCESS_TOKEN_TYPE, kid: key.kid })
      .setIssuer(issuerOf(this.config.COMANDA_PUBLIC_URL, tenantId))
      .setSubject(client.clientId)
      .setAudience(this.config.COMANDA_TOKEN_AUDIENCE)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + this.config.TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(key.privateKey);
  }
}
