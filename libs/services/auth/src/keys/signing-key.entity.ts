import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { JWK } from 'jose';

/** `next`: published, not signing yet; `current`: signs; `retired`: published until its tokens expired. */
export type SigningKeyStatus = 'next' | 'current' | 'retired';

@Entity({ name: 'signing_keys' })
export class SigningKey {
  /** RFC 7638 thumbprint of the public key. */
  @PrimaryColumn({ type: 'text' })
  kid!: string;

  @Column({ type: 'text' })
  algorithm!: 'ES256';

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk!: JWK;

  /** PKCS#8 PEM sealed with AES-256-GCM under AUTH_KEY_ENCRYPTION_KEY (kid as associated data). */
  @Column({ name: 'private_key_sealed', type: 'text' })
  privateKeySealed!: string;

  @Column({ type: 'text' })
  status!: SigningKeyStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'activated_at', type: 'timestamptz', nullable: true })
  activatedAt!: Date | null;

  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;

  /** For a retired key: when the last token it signed has expired. */
  @Column({ name: 'published_until', type: 'timestamptz', nullable: true })
  publishedUntil!: Date | null;
}
