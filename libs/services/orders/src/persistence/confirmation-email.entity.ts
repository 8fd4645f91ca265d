import { Column, Entity, PrimaryColumn } from 'typeorm';
import { LIMITS } from '../domain/limits';

/** The order confirmation e-mail as rendered, and how it left (SMTP or only stored). */
@Entity({ name: 'confirmation_emails' })
export class ConfirmationEmailEntity {
  @PrimaryColumn({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: LIMITS.idLength })
  tenantId!: string;

  @Column({ name: 'to_address', type: 'varchar', length: LIMITS.emailLength })
  to!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  text!: string;

  @Column({ type: 'text' })
  html!: string;

  @Column({ type: 'varchar', length: 16 })
  transport!: 'smtp' | 'stored';

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
