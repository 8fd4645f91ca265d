import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { qualifiedTable } from '../messaging.options';

/**
 * Outbox, inbox and timers of one service, in the service's own schema so that an event,
 * an inbox mark or a timer's "fired" mark commits in the same transaction as the state change.
 * Timestamped early so it runs before every service's own migrations.
 */
export class CreateMessagingTables1700000000000 implements MigrationInterface {
  name = 'CreateMessagingTables1700000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    const outbox = qualifiedTable(schema, 'outbox');
    const inbox = qualifiedTable(schema, 'inbox');
    const timers = qualifiedTable(schema, 'timers');

    await runner.query(`
      CREATE TABLE ${outbox} (
        position        bigserial PRIMARY KEY,
        event_id        uuid NOT NULL UNIQUE,
        tenant_id       text NOT NULL,
        subject         text NOT NULL,
        event_type      text NOT NULL,
        event           jsonb NOT NULL,
        headers         jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at      timestamptz NOT NULL DEFAULT now(),
        published_at    timestamptz,
        attempts        integer NOT NULL DEFAULT 0,
        last_error      text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until    timestamptz,
        locked_by       text
      )`);
    // The relay walks unpublished rows in position order and asks, per row, whether an
    // earlier unpublished row of the same aggregate exists.
    await runner.query(
      `CREATE INDEX "outbox_unpublished_idx" ON ${outbox} (position) WHERE published_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX "outbox_unpublished_aggregate_idx" ON ${outbox} (tenant_id, subject, position) WHERE published_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX "outbox_published_at_idx" ON ${outbox} (published_at) WHERE published_at IS NOT NULL`,
    );

    await runner.query(`
      CREATE TABLE ${inbox} (
        consumer     text NOT NULL,
        event_id     text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    await runner.query(`CREATE INDEX "inbox_processed_at_idx" ON ${inbox} (processed_at)`);

    await runner.query(`
      CREATE TABLE ${timers} (
        name            text NOT NULL,
        key             text NOT NULL,
        fire_at         timestamptz NOT NULL,
        payload         jsonb NOT NULL DEFAULT '{}'::jsonb,
        attempts        integer NOT NULL DEFAULT 0,
        last_error      text,
        next_attempt_at timestamptz NOT NULL,
        locked_until    timestamptz,
        locked_by       text,
        fired_at        timestamptz,
        dead_at         timestamptz,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, key)
      )`);
    await runner.query(
      `CREATE INDEX "timers_due_idx" ON ${timers} (next_attempt_at) WHERE fired_at IS NULL AND dead_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX "timers_fired_at_idx" ON ${timers} (fired_at) WHERE fired_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP TABLE ${qualifiedTable(schema, 'timers')}`);
    await runner.query(`DROP TABLE ${qualifiedTable(schema, 'inbox')}`);
    await runner.query(`DROP TABLE ${qualifiedTable(schema, 'outbox')}`);
  }
}

/** The schema of the data source a messaging migration runs on. */
export function schemaOf(runner: QueryRunner): string {
  const { schema } = runner.connection.options as PostgresConnectionOptions;
  if (!schema) throw new Error('the messaging tables need the data source to name its schema');
  return schema;
}
