import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries are claimed from their own table with a lease and posted outside any
 * transaction (ADR 0043), no longer attempted on durable timers.
 */
export class LeaseWebhookDeliveries1792000000000 implements MigrationInterface {
  name = 'LeaseWebhookDeliveries1792000000000';

  async up(runner: QueryRunner): Promise<void> {
    const table = `"${schemaOf(runner)}"."webhook_deliveries"`;
    await runner.query(`
      ALTER TABLE ${table}
        ADD COLUMN locked_until timestamptz,
        ADD COLUMN lease_id uuid,
        ADD COLUMN manual boolean NOT NULL DEFAULT false`);
    await runner.query(
      `CREATE INDEX "webhook_deliveries_due" ON ${table} (next_attempt_at) WHERE status = 'pending'`,
    );
    await runner.query(
      `CREATE INDEX "webhook_deliveries_in_flight" ON ${table} (subscription_id) WHERE locked_until IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP INDEX "${schema}"."webhook_deliveries_in_flight"`);
    await runner.query(`DROP INDEX "${schema}"."webhook_deliveries_due"`);
    await runner.query(`
      ALTER TABLE "${schema}"."webhook_deliveries"
        DROP COLUMN manual, DROP COLUMN lease_id, DROP COLUMN locked_until`);
  }
}
