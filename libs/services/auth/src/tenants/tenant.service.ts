import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Tx } from '@comanda/persistence';
import { TENANT_ID_PATTERN } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import {
  IssuerHostTakenError,
  TenantAlreadyExistsError,
  TenantNotFoundError,
} from '../auth.errors';
import { Tenant } from './tenant.entity';

export interface NewTenant {
  id: string;
  name: string;
  issuerHost?: string;
}

@Injectable()
export class TenantService {
  /** The platform's own host: its root answers for the platform, never for one tenant. */
  private readonly platformHost: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    this.platformHost = normalizeHost(new URL(config.COMANDA_PUBLIC_URL).host);
  }

  async create(manager: Tx, input: NewTenant): Promise<Tenant> {
    const repository = manager.getRepository(Tenant);
    if (await repository.existsBy({ id: input.id })) throw new TenantAlreadyExistsError(input.id);
    const issuerHost = input.issuerHost ? normalizeHost(input.issuerHost) : null;
    if (issuerHost === this.platformHost) throw new IssuerHostTakenError(issuerHost, true);
    if (issuerHost && (await repository.existsBy({ issuerHost })))
      throw new IssuerHostTakenError(issuerHost);
    // Two concurrent creates of one id both pass the check above: the insert decides, and
    // the one that finds the id taken answers like the check would have (409).
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(Tenant)
      .values({ id: input.id, name: input.name, issuerHost })
      .orIgnore()
      .returning('id')
      .execute();
    if ((inserted.raw as unknown[]).length === 0) {
      if (issuerHost && !(await repository.existsBy({ id: input.id }))) {
        throw new IssuerHostTakenError(issuerHost);
      }
      throw new TenantAlreadyExistsError(input.id);
    }
    return repository.findOneByOrFail({ id: input.id });
  }

  /** Creates the tenant when missing; used by the platform bootstrap. */
  async ensure(manager: EntityManager, id: string, name: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(Tenant)
      .values({ id, name, issuerHost: null })
      .orIgnore()
      .execute();
  }

  list(): Promise<Tenant[]> {
    return this.dataSource.getRepository(Tenant).find({ order: { id: 'ASC' } });
  }

  async get(id: string): Promise<Tenant> {
    // A path segment that is no tenant id (a NUL would even fail the query) names no tenant.
    if (!TENANT_ID_PATTERN.test(id)) throw new TenantNotFoundError(id);
    const tenant = await this.dataSource.getRepository(Tenant).findOneBy({ id });
    if (!tenant) throw new TenantNotFoundError(id);
    return tenant;
  }

  /** The tenant whose own issuer host this is (from `X-Forwarded-Host` or `Host`). */
  async byIssuerHost(host: string): Promise<Tenant> {
    const issuerHost = normalizeHost(host);
    const tenant = await this.dataSource.getRepository(Tenant).findOneBy({ issuerHost });
    if (!tenant) throw new TenantNotFoundError(issuerHost);
    return tenant;
  }

  /**
   * The ids of `ids` that name no tenant, read in the caller's transaction: a second
   * connection taken while the caller holds one would let a burst of callers hold the whole
   * pool and wait for each other until the pool's timeout.
   */
  async missing(manager: EntityManager, ids: readonly string[]): Promise<string[]> {
    const found = await manager.getRepository(Tenant).findBy(ids.map((id) => ({ id })));
    const known = new Set(found.map((tenant) => tenant.id));
    return ids.filter((id) => !known.has(id));
  }
}

/** Lower case, without port: `Auth.Example.com:443` is `auth.example.com`. */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/:\d+$/, '');
}
