/**
 * The limit of the machine: bare Fastify and `pg`, one indexed single-row read per request,
 * no framework, no authentication. Run as a child process by `bench/platform-bench.ts`;
 * tells its parent the URL over IPC once it listens.
 *
 *   DATABASE_URL=… node -r @swc-node/register bench/support/baseline-server.ts
 */
import Fastify from 'fastify';
import { Pool } from 'pg';

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
  process.send?.({ ready: true, url });
  process.on('disconnect', () => void app.close().then(() => pool.end()));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
