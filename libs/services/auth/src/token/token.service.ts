import { sqlRows } from '@comanda/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID, sign as signWith } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { ACCESS_TOKEN_TYPE, issuerOf, TENANT_ID_PATTERN } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import type { ClientEnvironment } from '../clients/api-client.entity';
import { SecretHasher } from '../crypto/secret-hasher';
import { SigningKeyService } from '../keys/signing-key.service';
import { TenantNotFoundError } from '../auth.errors';
import { FailedAttemptsService, type AttemptSubjects } from './failed-attempts.service';
import { OAuthError } from '@comanda/http';
import type { TokenRequest } from './token-request';

/** The token response of the spec, exactly. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/** Everything a token request needs, read in one statement. */
interface GrantRow {
  tenant_exists: boolean;
  client_id: string | null;
  tenant_ids: string[] | null;
  environment: ClientEnvironment | null;
  permissions: string[] | null;
  revoked_at: Date | null;
  secret_hashes: string[];
  client_failures: number;
  ip_failures: number;
}

type AuthenticatedClient = Pick<GrantRow, 'revoked_at'> & {
  clientId: string;
  tenantIds: string[];
  environment: ClientEnvironment;
  permissions: string[];
};

const AUTHENTICATION_FAILED = 'Client authentication failed.';

/**
 * The client credentials grant. A request costs one read (tenant, client, its live secret
 * hashes and the failure counts, in one statement) and no write when it succeeds: failures
 * are written only when there are some (ADR 0018).
 */
@Injectable()
export class TokenService {
  private readonly grantSql: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SigningKeyService,
    private readonly hasher: SecretHasher,
    private readonly attempts: FailedAttemptsService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {
    const schema = `"${String((dataSource.options as PostgresConnectionOptions).schema)}"`;
    this.grantSql = `
      SELECT EXISTS (SELECT 1 FROM ${schema}."tenants" WHERE id = $1) AS tenant_exists,
             c.client_id, c.tenant_ids, c.environment, c.permissions, c.revoked_at,
             ARRAY(SELECT s.secret_hash FROM ${schema}."client_secrets" s
                    WHERE s.client_id = c.client_id
                      AND (s.expires_at IS NULL OR s.expires_at > now())) AS secret_hashes,
             ${attempts.countsSql(3, 4, 5)}
        FROM (SELECT 1) AS one
        LEFT JOIN ${schema}."clients" c ON c.client_id = $2`;
  }

  /** Client credentials grant for `tenantId` (404 when there is no such tenant). */
  async issue(tenantId: string, request: TokenRequest, sourceIp: string): Promise<TokenResponse> {
    // A path segment that is no tenant id (a NUL would even fail the query) names no tenant.
    if (!TENANT_ID_PATTERN.test(tenantId)) throw new TenantNotFoundError(tenantId);
    const subjects: AttemptSubjects = { clientId: request.clientId, sourceIp };
    const stored = this.attempts.subjectsOf(subjects);
    const [row] = await sqlRows<GrantRow>(this.dataSource, this.grantSql, [
      tenantId,
      request.clientId,
      stored.client,
      stored.ip,
      stored.window,
    ]);
    if (!row.tenant_exists) throw new TenantNotFoundError(tenantId);
    await this.attempts.assertBelowLimits(subjects, {
      client: row.client_failures,
      ip: row.ip_failures,
    });
    const client = this.authenticate(request, row);
    if (!client) {
      await this.attempts.recordFailure(subjects);
      throw new OAuthError('invalid_client', AUTHENTICATION_FAILED);
    }
    if (row.client_failures > 0) await this.attempts.recordSuccess(subjects);

    // The caller proved it holds the secret: from here on, say plainly what is wrong.
    if (client.revoked_at !== null) {
      throw new OAuthError('invalid_client', 'The client is revoked.');
    }
    if (client.environment !== this.config.COMANDA_ENVIRONMENT) {
      throw new OAuthError(
        'invalid_client',
        `The client belongs to the ${client.environment} environment; this is the ${this.config.COMANDA_ENVIRONMENT} environment.`,
      );
    }
    if (!client.tenantIds.includes(tenantId)) {
      throw new OAuthError('unauthorized_client', `The client is not granted tenant ${tenantId}.`);
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

  private authenticate(request: TokenRequest, row: GrantRow): AuthenticatedClient | undefined {
    if (row.client_id === null) return undefined;
    // Every stored secret is compared, so the time taken does not tell which one matched.
    const matches = row.secret_hashes.map((hash) =>
      this.hasher.matches(request.clientSecret, hash),
    );
    if (!matches.includes(true)) return undefined;
    return {
      clientId: row.client_id,
      tenantIds: row.tenant_ids ?? [],
      environment: row.environment as ClientEnvironment,
      permissions: row.permissions ?? [],
      revoked_at: row.revoked_at,
    };
  }

  /**
   * A compact JWS (ES256) signed with the key held in memory: node:crypto's one-shot signer,
   * without a WebCrypto job per token.
   */
  private async sign(
    client: AuthenticatedClient,
    tenantId: string,
    scope: string,
  ): Promise<string> {
    const key = await this.keys.current();
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: key.algorithm, typ: ACCESS_TOKEN_TYPE, kid: key.kid };
    const claims = {
      client_id: client.clientId,
      scope,
      tid: tenantId,
      env: client.environment,
      iss: issuerOf(this.config.COMANDA_PUBLIC_URL, tenantId),
      sub: client.clientId,
      aud: this.config.COMANDA_TOKEN_AUDIENCE,
      iat: now,
      nbf: now,
      exp: now + this.config.TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
    };
    const signingInput = `${base64url(header)}.${base64url(claims)}`;
    const signature = signWith('sha256', Buffer.from(signingInput), {
      key: key.privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return `${signingInput}.${signature.toString('base64url')}`;
  }
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
