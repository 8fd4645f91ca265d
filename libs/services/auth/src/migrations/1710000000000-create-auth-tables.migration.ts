import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

export class CreateAuthTables1710000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    const { schema } = runner.connection.options as PostgresConnectionOptions;
    await runner.query(`
      CREATE TABLE "${schema}"."tenants" (
        id text PRIMARY KEY,
        name text NOT NULL,
        issuer_host text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."clients" (
        client_id text PRIMARY KEY,
        name text NOT NULL,
        tenant_ids text[] NOT NULL CHECK (cardinality(tenant_ids) > 0),
        environment text NOT NULL CHECK (environment IN ('test', 'production')),
        permissions text[] NOT NULL,
        personal_data boolean NOT NULL,
        contact_primary text NOT NULL,
        contact_secondary text NOT NULL CHECK (contact_secondary <> contact_primary),
        use_case text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."client_secrets" (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_id text NOT NULL REFERENCES "${schema}"."clients" (client_id),
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX "client_secrets_client_idx" ON "${schema}"."client_secrets" (client_id)`,
    );
    await runner.query(`
      CREATE TABLE "${schema}"."signing_keys" (
        kid text PRIMARY KEY,
        algorithm text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_sealed text NOT NULL,
        status text NOT NULL CHECK (status IN ('next', 'current', 'retired')),
        created_at timestamptz NOT NULL DEFAULT now(),
        activated_at timestamptz,
        retired_at timestamptz,
        published_until timestamptz
      )`);
    // At most one signing key and one next key, whatever replicas race.
    await runner.query(
      `CREATE UNIQUE INDEX "signing_keys_one_per_status" ON "${schema}"."signing_keys" (status) WHERE status <> 'retired'`,
    );
    await runner.query(`
      CREATE TABLE "${schema}"."failed_attempts" (
        id bigserial PRIMARY KEY,
        subject text NOT NULL,
        attempted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX "failed_attempts_subject_idx" ON "${schema}"."failed_attempts" (subject, attempted_at)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    const { schema } = runner.connection.options as PostgresConnectionOptions;
    for (const table of [
      'failed_attempts',
      'signing_keys',
      'client_secrets',
      'clients',
      'tenants',
    ]) {
      await runner.query(`DROP TABLE "${schema}"."${table}"`);
    }
  }
}
