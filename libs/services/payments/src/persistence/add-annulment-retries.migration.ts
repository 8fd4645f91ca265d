import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';

/**
 * A payment remembers its latest annulment and how often annulment failed (ADR 0042).
 * Payments already annulling or past it get their latest annulment from their operations,
 * so a late success of one that failed before this migration still ends them `annulled`.
 */
export class AddAnnulmentRetries1767000000000 implements MigrationInterface {
  name = 'AddAnnulmentRetries1767000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      ALTER TABLE "${schema}"."payments"
        ADD COLUMN last_annulment_id uuid,
        ADD COLUMN annulment_failures integer NOT NULL DEFAULT 0`);
    await runner.query(`
      UPDATE "${schema}"."payments" p
      SET last_annulment_id = (
        SELECT o.id FROM "${schema}"."payment_operations" o
        WHERE o.payment_id = p.id AND o.type = 'annulment'
        ORDER BY o.created_at DESC, o.id DESC LIMIT 1)
      WHERE p.state IN ('annulling', 'annulled', 'annulment_failed')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      ALTER TABLE "${schema}"."payments"
        DROP COLUMN last_annulment_id,
        DROP COLUMN annulment_failures`);
  }
}
