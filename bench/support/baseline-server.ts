/**
 * The limit of the machine: bare Fastify and `pg`, one indexed single-row read per request,
 * no framework, no authentication. Run as a child process by `bench/platform-bench.ts`;
 * tells its parent the URL over IPC once it listens.
 *
 * Two routes:
 * - `/entities/:entity/configs`: issue 10's baseline, one `jsonb` column of a three-column
 *   table, answered as it is;
 * - `/same-work/entities/:entity/configs`: the same work as the config store's read, still
 *   bare: its own row (the config store's table, statement and columns: twelve, three of
 *   them timestamps), answered with the same body and ETag. It reads schema `config` of the
 *   same database, which the platform creates (the route answers 404 until then).
 *
 *   DATABASE_URL=… node -r ./tools/register.js bench/support/baseline-server.ts
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { answerTimelines } from './timeline-recorder';

/** The config store's current-version read (ConfigService), columns and order as it has them. */
const SAME_WORK_READ = `SELECT row_id AS "rowId", tenant_id AS "tenantId", entity, config_id AS "configId",
  version, publisher, saved_by AS "savedBy", extension_references AS "extensionReferences",
  "values", config_created_at AS "configCreatedAt", saved_at AS "savedAt",
  deleted_at AS "deletedAt" FROM "config".config_versions WHERE tenant_id = $1 AND entity = $2
  AND deleted_at IS NULL ORDER BY version DESC LIMIT 1`;

interface SameWorkRow {
  configId: string;
  entity: string;
  version: number;
  publisher: string;
  extensionReferences: unknown[];
  values: Record<string, unknown>;
  configCreatedAt: Date;
  savedAt: Date;
  deletedAt: Date | null;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query('CREATE SCHEMA IF NOT EXISTS bench_baseline');
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_baseline.configs (tenant_id text, entity text, body jsonb NOT NULL, PRIMARY KEY (tenant_id, entity))',
  );
  await pool.query(
    `INSERT INTO bench_baseline.configs VALUES ('bench', 'bench', $1) ON CONFLICT DO NOTHING`,
    [JSON.stringify({ id: 'bench', values: { currency: 'CHF', tables: 12 } })],
  );

  const app = Fastify({ logger: false });
  app.get<{ Params: { entity: string } }>(
    '/same-work/entities/:entity/configs',
    async (request, reply) => {
      const { rows } = await pool.query<SameWorkRow>({
        name: 'same-work-read',
        text: SAME_WORK_READ,
        values: ['bench', request.params.entity],
      });
      const row = rows[0];
      if (row === undefined) return reply.code(404).send({ status: 404 });
      void reply.header('ETag', `"${row.version}"`);
      return {
        id: row.configId,
        entity: row.entity,
        version: row.version,
        publisher: row.publisher,
        extensionReferences: row.extensionReferences,
        values: row.values,
        createdAt: row.configCreatedAt.toISOString(),
        lastUpdateDate: (row.deletedAt ?? row.savedAt).toISOString(),
        deleted: row.deletedAt !== null,
      };
    },
  );
  app.get<{ Params: { entity: string } }>('/entities/:entity/configs', async (request, reply) => {
    const { rows } = await pool.query<{ body: unknown }>({
      name: 'baseline-read',
      text: 'SELECT body FROM bench_baseline.configs WHERE tenant_id = $1 AND entity = $2',
      values: ['bench', request.params.entity],
    });
    if (rows.length === 0) return reply.code(404).send({ status: 404 });
    return rows[0].body;
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  answerTimelines();
  process.send?.({ ready: true, url });
  process.on('disconnect', () => void app.close().then(() => pool.end()));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
