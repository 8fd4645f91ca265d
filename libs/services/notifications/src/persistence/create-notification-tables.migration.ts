import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';

export class CreateNotificationTables1763900000000 implements MigrationInterface {
  name = 'CreateNotificationTables1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      CREATE TABLE "${schema}"."merchant_secrets" (
        merchant_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        signing_secret text NOT NULL,
        configured_at timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."partner_events" (
        merchant_id text NOT NULL,
        event_id text NOT NULL,
        tenant_id text NOT NULL,
        type text NOT NULL,
        payment_id text NOT NULL,
        operation_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        reason text,
        raw_body text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, event_id)
      )`);
    await runner.query(
      `CREATE INDEX "partner_events_payment" ON "${schema}"."partner_events" (tenant_id, payment_id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP TABLE "${schema}"."partner_events"`);
    await runner.query(`DROP TABLE "${schema}"."merchant_secrets"`);
  }
}
