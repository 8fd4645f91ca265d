import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { takeTurn, type Tx } from '@comanda/persistence';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { EventTypes } from '@comanda/contracts';
import { OutboxWriter } from '@comanda/messaging';
import { issuerOf, PLATFORM_TENANT_ID, type Permission } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import {
  ClientNotFoundError,
  ClientRevokedError,
  InvalidClientDefinitionError,
} from '../auth.errors';
import { encryptCredentialsFile, generatePassphrase } from '../crypto/credentials-file';
import { generateSecret, SecretHasher } from '../crypto/secret-hasher';
import { TenantService } from '../tenants/tenant.service';
import { ApiClient, type ClientEnvironment } from './api-client.entity';
import { ClientSecret } from './client-secret.entity';

export interface NewClient {
  name: string;
  tenantIds: string[];
  environment: ClientEnvironment;
  permissions: Permission[];
  personalData: boolean;
  contacts: { primary: string; secondary: string };
  useCase: string;
  credentialsFile?: boolean;
}

export type CreatedClient =
  | { clientId: string; clientSecret: string }
  | { clientId: string; credentialsFile: string; passphrase: string };

/** The longest grace period an old secret may get after a rotation: 30 days. */
export const MAX_GRACE_PERIOD_SECONDS = 30 * 24 * 3600;

@Injectable()
export class ClientService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tenants: TenantService,
    private readonly hasher: SecretHasher,
    private readonly outbox: OutboxWriter,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async create(manager: Tx, input: NewClient): Promise<CreatedClient> {
    await this.checkDefinition(manager, input);
    const clientId = randomUUID();
    const clientSecret = generateSecret();
    const permissions = [
      ...new Set([
        ...input.permissions,
        ...(input.personalData ? (['personal-data:read'] as const) : []),
      ]),
    ].sort();
    const client = manager.getRepository(ApiClient).create({
      clientId,
      name: input.name,
      tenantIds: [...new Set(input.tenantIds)],
      environment: input.environment,
      permissions,
      personalData: input.personalData,
      contactPrimary: input.contacts.primary,
      contactSecondary: input.contacts.secondary,
      useCase: input.useCase,
      revokedAt: null,
    });
    await manager.getRepository(ApiClient).save(client);
    await this.addSecret(manager, clientId, clientSecret);
    await this.outbox.add(manager, {
      type: EventTypes.ClientCreated,
      tenantId: PLATFORM_TENANT_ID,
      subject: clientId,
      data: { clientId, tenantIds: client.tenantIds, environment: client.environment },
    });
    if (!input.credentialsFile) return { clientId, clientSecret };
    const passphrase = generatePassphrase();
    const credentialsFile = encryptCredentialsFile(
      {
        clientId,
        clientSecret,
        tenantIds: input.tenantIds,
        environment: input.environment,
        scope: permissions.join(' '),
        tokenEndpoints: Object.fromEntries(
          input.tenantIds.map((tenantId) => [
            tenantId,
            `${issuerOf(this.config.COMANDA_PUBLIC_URL, tenantId)}/connect/token`,
          ]),
        ),
      },
      passphrase,
    );
    return { clientId, credentialsFile, passphrase };
  }

  async list(): Promise<ApiClient[]> {
    return this.dataSource.getRepository(ApiClient).find({ order: { createdAt: 'ASC' } });
  }

  async get(clientId: string): Promise<ApiClient> {
    assertPossibleClientId(clientId);
    const client = await this.dataSource.getRepository(ApiClient).findOneBy({ clientId });
    if (!client) throw new ClientNotFoundError(clientId);
    return client;
  }

  async grant(manager: Tx, clientId: string, permissions: Permission[]): Promise<ApiClient> {
    const client = await this.lockActive(manager, clientId);
    checkGrants(client.tenantIds, permissions);
    client.grant(permissions);
    return manager.getRepository(ApiClient).save(client);
  }

  /**
   * A new secret; the ones that worked until now keep working for `gracePeriodSeconds`
   * (0: they stop at once).
   */
  async rotateSecret(
    manager: Tx,
    clientId: string,
    gracePeriodSeconds = 0,
  ): Promise<{ clientSecret: string }> {
    const clientSecret = generateSecret();
    await this.lockActive(manager, clientId);
    await this.endSecrets(manager, clientId, gracePeriodSeconds);
    await this.addSecret(manager, clientId, clientSecret);
    return { clientSecret };
  }

  async revoke(manager: Tx, clientId: string): Promise<ApiClient> {
    assertPossibleClientId(clientId);
    const client = await manager
      .getRepository(ApiClient)
      .findOne({ where: { clientId }, lock: { mode: 'pessimistic_write' } });
    if (!client) throw new ClientNotFoundError(clientId);
    if (client.revoked) return client;
    client.revokedAt = new Date();
    await manager.getRepository(ApiClient).save(client);
    await this.endSecrets(manager, clientId, 0);
    await this.outbox.add(manager, {
      type: EventTypes.ClientRevoked,
      tenantId: PLATFORM_TENANT_ID,
      subject: clientId,
      data: { clientId, tenantIds: client.tenantIds, environment: client.environment },
    });
    return client;
  }

  /**
   * The platform admin client from COMANDA_ADMIN_CLIENT_ID / _SECRET: created when missing,
   * its secret replaced when it changed. Idempotent, and replicas take turns.
   */
  async bootstrapAdmin(manager: Tx, clientId: string, clientSecret: string): Promise<void> {
    await takeTurn(manager, 'comanda:auth:admin-bootstrap');
    await this.tenants.ensure(manager, PLATFORM_TENANT_ID, 'Comanda platform');
    const repository = manager.getRepository(ApiClient);
    const existing = await repository.findOneBy({ clientId });
    if (!existing) {
      await repository.save(
        repository.create({
          clientId,
          name: 'Platform administrator (bootstrap)',
          tenantIds: [PLATFORM_TENANT_ID],
          environment: this.config.COMANDA_ENVIRONMENT,
          permissions: ['platform:admin'],
          personalData: false,
          contactPrimary: 'COMANDA_ADMIN_CLIENT_ID',
          contactSecondary: 'deployment configuration',
          useCase: 'Support staff: tenants and API clients',
          revokedAt: null,
        }),
      );
    } else {
      existing.environment = this.config.COMANDA_ENVIRONMENT;
      existing.revokedAt = null;
      existing.tenantIds = [PLATFORM_TENANT_ID];
      existing.grant(['platform:admin']);
      await repository.save(existing);
    }
    const secrets = await manager
      .getRepository(ClientSecret)
      .findBy({ clientId, expiresAt: IsNull() });
    if (secrets.length === 1 && this.hasher.matches(clientSecret, secrets[0].secretHash)) return;
    await this.endSecrets(manager, clientId, 0);
    await this.addSecret(manager, clientId, clientSecret);
  }

  private async checkDefinition(manager: EntityManager, input: NewClient): Promise<void> {
    if (
      input.contacts.primary.trim().toLowerCase() === input.contacts.secondary.trim().toLowerCase()
    ) {
      throw new InvalidClientDefinitionError(
        'contacts.secondary',
        'The secondary contact must differ from the primary one: the credentials file and its passphrase travel separately.',
      );
    }
    if (input.permissions.includes('personal-data:read') && !input.personalData) {
      throw new InvalidClientDefinitionError(
        'permissions',
        'personal-data:read is granted with personalData: true, not in the permission list alone.',
      );
    }
    const missing = await this.tenants.missing(manager, input.tenantIds);
    if (missing.length > 0) {
      throw new InvalidClientDefinitionError(
        'tenantIds',
        `Unknown tenants: ${missing.join(', ')}.`,
      );
    }
    checkGrants(input.tenantIds, input.permissions);
  }

  private async lockActive(manager: EntityManager, clientId: string): Promise<ApiClient> {
    assertPossibleClientId(clientId);
    const client = await manager
      .getRepository(ApiClient)
      .findOne({ where: { clientId }, lock: { mode: 'pessimistic_write' } });
    if (!client) throw new ClientNotFoundError(clientId);
    if (client.revoked) throw new ClientRevokedError(clientId);
    return client;
  }

  private async addSecret(manager: EntityManager, clientId: string, secret: string): Promise<void> {
    const repository = manager.getRepository(ClientSecret);
    await repository.save(
      repository.create({ clientId, secretHash: this.hasher.hash(secret), expiresAt: null }),
    );
  }

  /** Secrets that work now stop working after `seconds` (never later than they would anyway). */
  private async endSecrets(
    manager: EntityManager,
    clientId: string,
    seconds: number,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(ClientSecret)
      .set({ expiresAt: () => `now() + make_interval(secs => ${Math.floor(seconds)})` })
      .where('client_id = :clientId', { clientId })
      .andWhere('(expires_at IS NULL OR expires_at > now() + make_interval(secs => :seconds))', {
        seconds: Math.floor(seconds),
      })
      .execute();
  }
}

/**
 * A client id from a path that could not be stored (a control character; Postgres refuses a
 * NUL with an error of its own) names no client.
 */
function assertPossibleClientId(clientId: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(clientId)) throw new ClientNotFoundError(clientId);
}

/** `platform:admin` belongs to clients of the platform tenant only, and only to them. */
function checkGrants(tenantIds: readonly string[], permissions: readonly Permission[]): void {
  const platform = tenantIds.includes(PLATFORM_TENANT_ID);
  if (permissions.includes('platform:admin') && (!platform || tenantIds.length > 1)) {
    throw new InvalidClientDefinitionError(
      'permissions',
      'platform:admin is granted only to clients of the platform tenant alone.',
    );
  }
  if (platform && !permissions.every((permission) => permission === 'platform:admin')) {
    throw new InvalidClientDefinitionError(
      'tenantIds',
      'Clients of the platform tenant hold platform:admin only.',
    );
  }
}
