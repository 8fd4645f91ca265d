import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Permission } from '@comanda/security';

export type ClientEnvironment = 'test' | 'production';

/** An API client: who may ask for tokens, for which tenants, in which environment, with what. */
@Entity({ name: 'clients' })
export class ApiClient {
  @PrimaryColumn({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'tenant_ids', type: 'text', array: true })
  tenantIds!: string[];

  @Column({ type: 'text' })
  environment!: ClientEnvironment;

  /** Granted permissions; `personal-data:read` among them exactly when `personalData`. */
  @Column({ type: 'text', array: true })
  permissions!: Permission[];

  @Column({ name: 'personal_data', type: 'boolean' })
  personalData!: boolean;

  @Column({ name: 'contact_primary', type: 'text' })
  contactPrimary!: string;

  @Column({ name: 'contact_secondary', type: 'text' })
  contactSecondary!: string;

  @Column({ name: 'use_case', type: 'text' })
  useCase!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  get revoked(): boolean {
    return this.revokedAt !== null;
  }

  /** Grants permissions (idempotent); personal data follows its permission. */
  grant(permissions: readonly Permission[]): void {
    this.permissions = [...new Set([...this.permissions, ...permissions])].sort();
    this.personalData = this.permissions.includes('personal-data:read');
  }
}
