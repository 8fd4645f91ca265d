import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePluginTables1763820000000 implements MigrationInterface {
  name = 'CreatePluginTables1763820000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      CREATE TABLE "${schema}"."plugin_versions" (
        tenant_id text NOT NULL,
        name text NOT NULL,
        version text NOT NULL,
        code bytea NOT NULL,
        code_sha256 text NOT NULL,
        code_size integer NOT NULL,
        code_uploaded_at timestamptz NOT NULL,
        manifest jsonb,
        manifest_uploaded_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, name, version)
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."plugin_configs" (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        version text NOT NULL,
        config jsonb NOT NULL,
        extra jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX "plugin_configs_tenant_name" ON "${schema}"."plugin_configs" (tenant_id, name)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`DROP TABLE "${schema}"."plugin_configs"`);
    await runner.query(`DROP TABLE "${schema}"."plugin_versions"`);
  }
}

/** Every table lives in the service's schema, whichever the data source was opened with. */
function schemaOf(runner: QueryRunner): string {
  const schema = (runner.connection.options as { schema?: string }).schema;
  if (!schema) throw new Error('the plugin registry migrations need a schema on the data source');
  return schema;
}
