import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each subscription's pending deliveries in the order they are attempted: the claim walks
 * the subscriptions that have any, and takes each one's earliest through this index, instead
 * of sorting every due delivery on every claim.
 */
export class IndexPendingWebhookDeliveries1794000000000 implements MigrationInterface {
  name = 'IndexPendingWebhookDeliveries1794000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX "webhook_deliveries_pending" ON "${schemaOf(runner)}"."webhook_deliveries"
         (subscription_id, next_attempt_at, id) WHERE status = 'pending'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "${schemaOf(runner)}"."webhook_deliveries_pending"`);
  }
}
