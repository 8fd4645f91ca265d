import { Inject, Injectable } from '@nestjs/common';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JSONWebKeySet, type JWK } from 'jose';
import { DataSource, type EntityManager } from 'typeorm';
import { takeTurn } from '@comanda/persistence';
import { open, seal, type JwksSource } from '@comanda/security';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import { KEY_MATERIAL } from '../crypto/key-material.provider';
import type { KeyMaterial } from '../crypto/key-material';
import { SigningKey } from './signing-key.entity';

export interface ActiveSigningKey {
  kid: string;
  algorithm: 'ES256';
  privateKey: KeyObject;
}

/** The turn writers of the signing keys take (rotation, the first key, resealing). */
export const SIGNING_KEYS_TURN = 'comanda:auth:signing-keys';
/** How long a replica signs with the key it read before looking again. */
const CURRENT_KEY_CACHE_MS = 5_000;
/** Retired keys stay published this much beyond the lifetime of their last token. */
const PUBLISH_MARGIN_SECONDS = 300;

/**
 * Platform-wide ES256 signing keys. There is always a `current` key that signs and a `next`
 * key that is already published, so verifiers that cached the JWKS know a key before it
 * signs; a rotation retires `current` (published until its last token expired), promotes
 * `next` and publishes a new `next`.
 */
@Injectable()
export class SigningKeyService implements JwksSource {
  private cached: { key: ActiveSigningKey; until: number } | undefined;
  private loading: Promise<ActiveSigningKey> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(KEY_MATERIAL) private readonly keys: KeyMaterial,
  ) {}

  /** Makes sure a current and a next key exist (idempotent; replicas take turns). */
  async ensureKeys(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await takeTurn(manager, SIGNING_KEYS_TURN);
      await this.fillMissing(manager);
    });
  }

  async rotate(): Promise<{ currentKid: string; nextKid: string }> {
    const result = await this.dataSource.transaction(async (manager) => {
      await takeTurn(manager, SIGNING_KEYS_TURN);
      const repository = manager.getRepository(SigningKey);
      await this.fillMissing(manager);
      const current = await repository.findOneByOrFail({ status: 'current' });
      const next = await repository.findOneByOrFail({ status: 'next' });
      const publishSeconds = this.config.TOKEN_LIFETIME_SECONDS + PUBLISH_MARGIN_SECONDS;
      await manager
        .createQueryBuilder()
        .update(SigningKey)
        .set({
          status: 'retired',
          retiredAt: () => 'now()',
          publishedUntil: () => `now() + make_interval(secs => ${publishSeconds})`,
        })
        .where('kid = :kid', { kid: current.kid })
        .execute();
      await repository.update({ kid: next.kid }, { status: 'current', activatedAt: new Date() });
      const fresh = await this.createKey(manager, 'next');
      return { currentKid: next.kid, nextKid: fresh.kid };
    });
    this.cached = undefined;
    return result;
  }

  /**
   * The key to sign with now, held in memory: this replica drops it when it rotates, and
   * looks at the database again every few seconds (one concurrent read, the key only
   * unsealed and imported when its kid changed) to follow another replica's rotation.
   */
  async current(): Promise<ActiveSigningKey> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.key;
    this.loading ??= this.loadCurrent().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async loadCurrent(): Promise<ActiveSigningKey> {
    let row = await this.dataSource.getRepository(SigningKey).findOneBy({ status: 'current' });
    if (!row) {
      await this.ensureKeys();
      row = await this.dataSource.getRepository(SigningKey).findOneByOrFail({ status: 'current' });
    }
    const key: ActiveSigningKey =
      this.cached?.key.kid === row.kid
        ? this.cached.key
        : {
            kid: row.kid,
            algorithm: row.algorithm,
            privateKey: createPrivateKey(
              open(this.keys.keyEncryptionKey, row.privateKeySealed, row.kid),
            ),
          };
    this.cached = { key, until: Date.now() + CURRENT_KEY_CACHE_MS };
    return key;
  }

  /** Every published public key: next, current and retired ones whose tokens may live. */
  async jwks(): Promise<JSONWebKeySet> {
    const rows = await this.dataSource
      .getRepository(SigningKey)
      .createQueryBuilder('key')
      .where(`key.status <> 'retired' OR key.published_until > now()`)
      .orderBy('key.created_at', 'DESC')
      .getMany();
    return { keys: rows.map((row) => row.publicJwk) };
  }

  private async fillMissing(manager: EntityManager): Promise<void> {
    const repository = manager.getRepository(SigningKey);
    if (!(await repository.existsBy({ status: 'current' })))
      await this.createKey(manager, 'current');
    if (!(await repository.existsBy({ status: 'next' }))) await this.createKey(manager, 'next');
  }

  private async createKey(manager: EntityManager, status: 'current' | 'next'): Promise<SigningKey> {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(jwk, 'sha256');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const row = manager.getRepository(SigningKey).create({
      kid,
      algorithm: 'ES256',
      publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' },
      privateKeySealed: seal(this.keys.keyEncryptionKey, pem, kid),
      status,
      activatedAt: status === 'current' ? new Date() : null,
      retiredAt: null,
      publishedUntil: null,
    });
    return manager.getRepository(SigningKey).save(row);
  }
}
