import { randomBytes, randomUUID } from 'node:crypto';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { ordersService } from '../orders.service-definition';
import { CreateOrdersTables1764000000000 } from '../persistence/create-orders-tables.migration';
import { CreateWebhookTables1790000000000 } from './create-webhook-tables.migration';

describe('migration: webhook secrets sealed at rest (ADR 0040)', () => {
  const key = randomBytes(32).toString('base64url');
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('orders_seal_webhook_secrets');
  });
  afterAll(() => db.drop());

  it('seals the secrets of existing subscriptions and keeps no copy in clear', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'orders',
      entities: [],
      migrations: [
        ...MESSAGING_MIGRATIONS,
        CreateOrdersTables1764000000000,
        CreateWebhookTables1790000000000,
      ],
    });
    const ids = [randomUUID(), randomUUID()].sort();
    await before.query(
      `INSERT INTO orders.webhook_subscriptions (id, tenant_id, url, types, secret, status, created_by)
       VALUES ($1, 'tenant-a', 'https://a.example/hooks', '{order.placed}', 'whsec_one', 'active', 'c'),
              ($2, 'tenant-b', 'https://b.example/hooks', '{order.placed}', 'whsec_two', 'paused', 'c')`,
      ids,
    );
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'orders',
      entities: [],
      migrations: schemaMigrations(ordersService, { COMANDA_SECRETS_KEY: key }),
    });
    try {
      const rows: Array<Record<string, string>> = await after.query(
        'SELECT * FROM orders.webhook_subscriptions ORDER BY id',
      );
      expect(Object.keys(rows[0] ?? {})).not.toContain('secret');
      expect(JSON.stringify(rows)).not.toMatch(/whsec_/);
      const box = new SecretBox(Buffer.from(key, 'base64url'));
      expect(
        rows.map((row) =>
          box.open(row['secret_sealed'], `orders.webhook_subscriptions:${row['id']}`),
        ),
      ).toEqual(['whsec_one', 'whsec_two']);
      expect(rows.map((row) => row['status'])).toEqual(['active', 'paused']);
    } finally {
      await after.destroy();
    }
  });

  it('does not start without COMANDA_SECRETS_KEY', () => {
    expect(() => schemaMigrations(ordersService, {})).toThrow(
      /the orders service refuses to start without COMANDA_SECRETS_KEY/,
    );
  });
});
