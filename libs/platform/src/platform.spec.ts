import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ensureAdminCredentials } from './admin-credentials';
import { startEmbeddedPostgres } from './embedded-postgres';
import { serviceUrlVariable } from './start-platform';

describe('platform composition', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'comanda-platform-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('names each service URL variable after the service', () => {
    expect(serviceUrlVariable('auth')).toBe('AUTH_URL');
    expect(serviceUrlVariable('plugin-registry')).toBe('PLUGIN_REGISTRY_URL');
  });

  it('makes the admin credentials once, keeps them private, and prefers the environment', async () => {
    const made = await ensureAdminCredentials(dataDir, {});
    expect(made.clientSecret.length).toBeGreaterThanOrEqual(43);
    expect(statSync(made.file as string).mode & 0o777).toBe(0o600);
    expect(await ensureAdminCredentials(dataDir, {})).toEqual(made);
    expect(
      await ensureAdminCredentials(dataDir, {
        COMANDA_ADMIN_CLIENT_ID: 'ops',
        COMANDA_ADMIN_CLIENT_SECRET: 'x'.repeat(40),
      }),
    ).toEqual({ clientId: 'ops', clientSecret: 'x'.repeat(40) });
  });

  it('runs an embedded PostgreSQL whose data survives a restart', async () => {
    const logger = new Logger('test');
    const first = await startEmbeddedPostgres(dataDir, logger);
    let client = new Client({ connectionString: first.url });
    await client.connect();
    await client.query('CREATE TABLE kept (value text)');
    await client.query(`INSERT INTO kept VALUES ('still here')`);
    await client.end();
    await first.stop();

    const second = await startEmbeddedPostgres(dataDir, logger);
    try {
      client = new Client({ connectionString: second.url });
      await client.connect();
      const { rows } = await client.query('SELECT value FROM kept');
      await client.end();
      expect(rows).toEqual([{ value: 'still here' }]);
      // Loopback only, with a password: another user on the machine cannot just connect.
      expect(new URL(second.url).hostname).toBe('127.0.0.1');
      const anonymous = new Client({
        connectionString: second.url.replace(/:[^:@/]+@/, ':wrong@'),
      });
      await expect(anonymous.connect()).rejects.toThrow(/password authentication failed/);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
