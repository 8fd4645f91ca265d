import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';

export class CreatePaymentTables1764000000000 implements MigrationInterface {
  name = 'CreatePaymentTables1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    // Merchant ids are global: the notification receiver's path names a merchant, not a tenant.
    await runner.query(`
      CREATE TABLE "${schema}"."merchants" (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        partner_url text NOT NULL,
        signing_secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."payments" (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        order_id text NOT NULL,
        merchant_id text NOT NULL,
        payment_method text NOT NULL,
        amount_value bigint NOT NULL,
        currency text NOT NULL,
        state text NOT NULL,
        pending_operation_id uuid,
        pending_operation_type text,
        failure_reason text,
        reservation_expires_at timestamptz,
        capture_failures integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, order_id)
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."payment_operations" (
        id uuid PRIMARY KEY,
        payment_id uuid NOT NULL REFERENCES "${schema}"."payments"(id),
        tenant_id text NOT NULL,
        merchant_id text NOT NULL,
        type text NOT NULL,
        status text NOT NULL,
        body text NOT NULL,
        deadline_at timestamptz NOT NULL,
        send_attempts integer NOT NULL DEFAULT 0,
        next_send_at timestamptz NOT NULL,
        locked_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        accepted_at timestamptz,
        completed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX "payment_operations_due" ON "${schema}"."payment_operations" (next_send_at) WHERE status = 'sending'`,
    );
    await runner.query(
      `CREATE INDEX "payment_operations_payment" ON "${schema}"."payment_operations" (payment_id, created_at)`,
    );
    await runner.query(`
      CREATE TABLE "${schema}"."payment_events" (
        id bigserial PRIMARY KEY,
        payment_id uuid NOT NULL REFERENCES "${schema}"."payments"(id),
        trigger text NOT NULL,
        event_id text,
        -- As the partner named it: not necessarily one of ours, nor a UUID.
        operation_id text,
        reason text,
        applied boolean NOT NULL,
        note text NOT NULL,
        state_before text NOT NULL,
        state_after text NOT NULL,
        occurred_at timestamptz,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX "payment_events_payment" ON "${schema}"."payment_events" (payment_id, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    for (const table of ['payment_events', 'payment_operations', 'payments', 'merchants']) {
      await runner.query(`DROP TABLE "${schema}"."${table}"`);
    }
  }
}
