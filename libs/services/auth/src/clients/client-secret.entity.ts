import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One secret of a client, as a hash only. A client has one current secret (no expiry) and,
 * after a rotation with a grace period, the previous ones until `expires_at`.
 */
@Entity({ name: 'client_secrets' })
export class ClientSecret {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  /** HMAC-SHA256 (peppered) of the secret, hex. */
  @Column({ name: 'secret_hash', type: 'text' })
  secretHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;
}
