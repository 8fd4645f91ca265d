import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook subscriptions and their deliveries, in the orders schema (after orders' own tables). */
export class CreateWebhookTables1790000000000 implements MigrationInterface {
  name = 'CreateWebhookTables1790000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      CREATE TABLE "${schema}"."webhook_subscriptions" (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        url text NOT NULL,
        types text[] NOT NULL,
        secret text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'paused')),
        consecutive_failures integer NOT NULL DEFAULT 0,
        paused_at timestamptz,
        pause_reason text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX "webhook_subscriptions_tenant" ON "${schema}"."webhook_subscriptions" (tenant_id, created_at)`,
    );
    await runner.query(`
      CREATE TABLE "${schema}"."webhook_deliveries" (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        subscription_id uuid NOT NULL
          REFERENCES "${schema}"."webhook_subscriptions" (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'paused')),
        attempts integer NOT NULL DEFAULT 0,
        attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb,
        next_attempt_at timestamptz,
        retry_until timestamptz NOT NULL,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX "webhook_deliveries_subscription" ON "${schema}"."webhook_deliveries" (subscription_id, created_at)`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX "webhook_deliveries_event" ON "${schema}"."webhook_deliveries" (subscription_id, event_id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP TABLE "${schema}"."webhook_deliveries"`);
    await runner.query(`DROP TABLE "${schema}"."webhook_subscriptions"`);
  }
}
