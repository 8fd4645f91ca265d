import type { MigrationInterface, QueryRunner } from 'typeorm';
import { qualifiedTable } from '../messaging.options';
import { schemaOf } from './create-messaging-tables.migration';

/**
 * Deliveries counted before each handler runs (poison that crashes the process is parked
 * after N), the service's durable dead letters (both bus modes), and the indexes the relay
 * and retention need to scale with their work rather than with the table.
 */
export class CreateDeadLetters1700000000001 implements MigrationInterface {
  name = 'CreateDeadLetters1700000000001';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    const deliveries = qualifiedTable(schema, 'deliveries');
    const deadLetters = qualifiedTable(schema, 'dead_letters');
    const outbox = qualifiedTable(schema, 'outbox');
    const timers = qualifiedTable(schema, 'timers');

    await runner.query(`
      CREATE TABLE ${deliveries} (
        consumer    text NOT NULL,
        event_id    text NOT NULL,
        deliveries  integer NOT NULL DEFAULT 1,
        last_error  text,
        updated_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    await runner.query(`CREATE INDEX "deliveries_updated_at_idx" ON ${deliveries} (updated_at)`);

    await runner.query(`
      CREATE TABLE ${deadLetters} (
        id          bigserial PRIMARY KEY,
        consumer    text NOT NULL,
        event_id    text NOT NULL,
        event_type  text NOT NULL,
        tenant_id   text,
        event       jsonb NOT NULL,
        headers     jsonb NOT NULL DEFAULT '{}'::jsonb,
        error       text NOT NULL,
        attempts    integer NOT NULL,
        failed_at   timestamptz NOT NULL DEFAULT now(),
        UNIQUE (consumer, event_id)
      )`);
    await runner.query(`CREATE INDEX "dead_letters_failed_at_idx" ON ${deadLetters} (failed_at)`);

    // Outbox rows that failed too often are parked, not retried forever.
    await runner.query(`ALTER TABLE ${outbox} ADD COLUMN dead_at timestamptz`);
    await runner.query(`DROP INDEX "${schema}"."outbox_unpublished_idx"`);
    await runner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON ${outbox} (position) WHERE published_at IS NULL AND dead_at IS NULL`,
    );
    // The relay leaves out aggregates whose oldest row waits in back-off: only failed rows
    // are in this index, so the check is free while nothing fails.
    await runner.query(
      `CREATE INDEX "outbox_backoff_idx" ON ${outbox} (tenant_id, subject, position) WHERE published_at IS NULL AND dead_at IS NULL AND attempts > 0`,
    );
    await runner.query(`DROP INDEX "${schema}"."outbox_unpublished_aggregate_idx"`);
    await runner.query(
      `CREATE INDEX "outbox_dead_idx" ON ${outbox} (dead_at) WHERE dead_at IS NOT NULL`,
    );
    // Dead timers are kept for a while, then deleted.
    await runner.query(
      `CREATE INDEX "timers_dead_at_idx" ON ${timers} (dead_at) WHERE dead_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    const outbox = qualifiedTable(schema, 'outbox');
    await runner.query(`DROP INDEX "${schema}"."timers_dead_at_idx"`);
    await runner.query(`DROP INDEX "${schema}"."outbox_dead_idx"`);
    await runner.query(`DROP INDEX "${schema}"."outbox_backoff_idx"`);
    await runner.query(
      `CREATE INDEX "outbox_unpublished_aggregate_idx" ON ${outbox} (tenant_id, subject, position) WHERE published_at IS NULL`,
    );
    await runner.query(`DROP INDEX "${schema}"."outbox_unpublished_idx"`);
    await runner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON ${outbox} (position) WHERE published_at IS NULL`,
    );
    await runner.query(`ALTER TABLE ${outbox} DROP COLUMN dead_at`);
    await runner.query(`DROP TABLE ${qualifiedTable(schema, 'dead_letters')}`);
    await runner.query(`DROP TABLE ${qualifiedTable(schema, 'deliveries')}`);
  }
}
