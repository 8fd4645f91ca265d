import type { MigrationInterface, QueryRunner } from 'typeorm';

function schemaOf(runner: QueryRunner): string {
  const schema = (runner.connection.options as { schema?: string }).schema;
  if (!schema) throw new Error('the config store migrations need the data source schema option');
  return schema;
}

/** Configs with versions, connections and the extension registry of the `config` schema. */
export class CreateConfigStoreTables1720000000000 implements MigrationInterface {
  name = 'CreateConfigStoreTables1720000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      CREATE TABLE "${schema}"."config_versions" (
        row_id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id            text NOT NULL,
        entity               text NOT NULL,
        config_id            text NOT NULL,
        version              integer NOT NULL CHECK (version >= 1),
        publisher            text NOT NULL,
        saved_by             text NOT NULL,
        extension_references jsonb NOT NULL DEFAULT '[]'::jsonb,
        "values"             jsonb NOT NULL DEFAULT '{}'::jsonb,
        config_created_at    timestamptz NOT NULL,
        saved_at             timestamptz NOT NULL,
        deleted_at           timestamptz,
        CONSTRAINT "config_versions_version_key" UNIQUE (tenant_id, entity, version)
      )`);

    await runner.query(`
      CREATE TABLE "${schema}"."extensions" (
        id             text PRIMARY KEY,
        entity         text NOT NULL,
        publisher      text NOT NULL,
        tenant_id      text NOT NULL,
        latest_version text NOT NULL,
        revision       integer NOT NULL DEFAULT 1,
        created_at     timestamptz NOT NULL,
        updated_at     timestamptz NOT NULL,
        deleted_at     timestamptz
      )`);
    await runner.query(
      `CREATE INDEX "extensions_page_idx" ON "${schema}"."extensions" (entity, created_at, id)`,
    );
    await runner.query(`
      CREATE TABLE "${schema}"."extension_versions" (
        extension_id         text NOT NULL REFERENCES "${schema}"."extensions" (id),
        version              text NOT NULL,
        availability         text NOT NULL CHECK (availability IN ('Public', 'Private')),
        base_type            text NOT NULL,
        extension_references jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at           timestamptz NOT NULL,
        updated_at           timestamptz NOT NULL,
        PRIMARY KEY (extension_id, version)
      )`);

    await runner.query(`
      CREATE TABLE "${schema}"."connections" (
        row_id      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id   text NOT NULL,
        entity      text NOT NULL,
        id          text NOT NULL,
        entity_type text NOT NULL
          CHECK (entity_type IN ('Type', 'Extension', 'Config', 'Schema', 'Value', 'Reference')),
        publisher   text NOT NULL,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        deleted_at  timestamptz
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX "connections_live_key" ON "${schema}"."connections" (tenant_id, entity, id, entity_type) WHERE deleted_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX "connections_page_idx" ON "${schema}"."connections" (tenant_id, entity, created_at, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP TABLE "${schema}"."connections"`);
    await runner.query(`DROP TABLE "${schema}"."extension_versions"`);
    await runner.query(`DROP TABLE "${schema}"."extensions"`);
    await runner.query(`DROP TABLE "${schema}"."config_versions"`);
  }
}
