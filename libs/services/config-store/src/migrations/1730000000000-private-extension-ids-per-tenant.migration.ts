import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Extension ids: unique within a tenant, and among published extensions on the whole
 * platform (ADR 0016). A private id of one tenant no longer blocks the same id anywhere else,
 * so creating one cannot reveal another tenant's private extension.
 */
export class PrivateExtensionIdsPerTenant1730000000000 implements MigrationInterface {
  name = 'PrivateExtensionIdsPerTenant1730000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    const extensions = `"${schema}"."extensions"`;
    const versions = `"${schema}"."extension_versions"`;
    // Published: once any version was Public. It never goes back (ADR 0016).
    await runner.query(
      `ALTER TABLE ${extensions} ADD COLUMN published boolean NOT NULL DEFAULT false`,
    );
    await runner.query(`
      UPDATE ${extensions} extension SET published = EXISTS (
        SELECT 1 FROM ${versions} version
        WHERE version.extension_id = extension.id AND version.availability = 'Public')`);
    await runner.query(`ALTER TABLE ${versions} ADD COLUMN tenant_id text`);
    await runner.query(`
      UPDATE ${versions} version SET tenant_id = extension.tenant_id
      FROM ${extensions} extension WHERE extension.id = version.extension_id`);
    await runner.query(`ALTER TABLE ${versions} ALTER COLUMN tenant_id SET NOT NULL`);

    await runner.query(
      `ALTER TABLE ${versions} DROP CONSTRAINT "extension_versions_extension_id_fkey"`,
    );
    await runner.query(`ALTER TABLE ${versions} DROP CONSTRAINT "extension_versions_pkey"`);
    await runner.query(`ALTER TABLE ${extensions} DROP CONSTRAINT "extensions_pkey"`);

    await runner.query(
      `ALTER TABLE ${extensions} ADD CONSTRAINT "extensions_pkey" PRIMARY KEY (tenant_id, id)`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX "extensions_published_id_key" ON ${extensions} (id) WHERE published`,
    );
    await runner.query(
      `ALTER TABLE ${versions} ADD CONSTRAINT "extension_versions_pkey" PRIMARY KEY (tenant_id, extension_id, version)`,
    );
    await runner.query(`
      ALTER TABLE ${versions} ADD CONSTRAINT "extension_versions_extension_fkey"
      FOREIGN KEY (tenant_id, extension_id) REFERENCES ${extensions} (tenant_id, id)`);
    // References name versions by id and version string, whatever the tenant.
    await runner.query(
      `CREATE INDEX "extension_versions_reference_idx" ON ${versions} (extension_id, version)`,
    );
  }

  /** Only possible while no id is used by two tenants. */
  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    const extensions = `"${schema}"."extensions"`;
    const versions = `"${schema}"."extension_versions"`;
    await runner.query(`DROP INDEX "${schema}"."extension_versions_reference_idx"`);
    await runner.query(
      `ALTER TABLE ${versions} DROP CONSTRAINT "extension_versions_extension_fkey"`,
    );
    await runner.query(`ALTER TABLE ${versions} DROP CONSTRAINT "extension_versions_pkey"`);
    await runner.query(`DROP INDEX "${schema}"."extensions_published_id_key"`);
    await runner.query(`ALTER TABLE ${extensions} DROP CONSTRAINT "extensions_pkey"`);
    await runner.query(
      `ALTER TABLE ${extensions} ADD CONSTRAINT "extensions_pkey" PRIMARY KEY (id)`,
    );
    await runner.query(
      `ALTER TABLE ${versions} ADD CONSTRAINT "extension_versions_pkey" PRIMARY KEY (extension_id, version)`,
    );
    await runner.query(`
      ALTER TABLE ${versions} ADD CONSTRAINT "extension_versions_extension_id_fkey"
      FOREIGN KEY (extension_id) REFERENCES ${extensions} (id)`);
    await runner.query(`ALTER TABLE ${versions} DROP COLUMN tenant_id`);
    await runner.query(`ALTER TABLE ${extensions} DROP COLUMN published`);
  }
}
