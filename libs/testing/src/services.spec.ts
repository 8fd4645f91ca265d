import { Client } from 'pg';
import { createTestBroker, createTestDatabase } from './services';
import { waitFor } from './wait-for';

async function databaseExists(url: string, name: string): Promise<boolean> {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return found.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('test harness', () => {
  it('gives each suite a database of its own and drops it afterwards', async () => {
    const [a, b] = await Promise.all([
      createTestDatabase('harness'),
      createTestDatabase('harness'),
    ]);
    expect(a.name).not.toBe(b.name);
    const client = new Client({ connectionString: a.url });
    await client.connect();
    expect((await client.query('SELECT current_database() AS name')).rows[0].name).toBe(a.name);
    await client.end();

    await Promise.all([a.drop(), b.drop()]);
    expect(await databaseExists(a.url, a.name)).toBe(false);
  });

  it('gives each suite its own exchange and queue prefix', async () => {
    const [a, b] = await Promise.all([createTestBroker('harness'), createTestBroker('harness')]);
    expect(a.exchange).not.toBe(b.exchange);
    expect(a.queuePrefix).not.toBe(b.queuePrefix);
    expect(a.exchange).toMatch(/^comanda\.events\.test\./);
  });

  it('waitFor returns the first real value, and names what it waited for when it gives up', async () => {
    let calls = 0;
    await expect(waitFor('the third call', () => (++calls >= 3 ? calls : undefined))).resolves.toBe(
      3,
    );
    await expect(
      waitFor('a thing that never happens', () => false, { timeoutMs: 100, intervalMs: 10 }),
    ).rejects.toThrow('timed out after 100 ms waiting for a thing that never happens');
  });
});
