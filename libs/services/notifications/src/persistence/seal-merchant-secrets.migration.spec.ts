import { randomBytes } from 'node:crypto';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { notificationsService } from '../notifications.service-definition';
import { CreateNotificationTables1763900000000 } from './create-notification-tables.migration';

describe('migration: merchant secrets sealed at rest in notifications (ADR 0033)', () => {
  const key = randomBytes(32).toString('base64url');
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('notifications_seal_secrets');
  });
  afterAll(() => db.drop());

  it('seals the secrets learnt before it and keeps no copy in clear', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'notifications',
      entities: [],
      migrations: [...MESSAGING_MIGRATIONS, CreateNotificationTables1763900000000],
    });
    await before.query(`
      INSERT INTO notifications.merchant_secrets (merchant_id, tenant_id, signing_secret, configured_at)
      VALUES ('m-1', 'tenant-a', 'secret-one-0123456789', now()),
             ('m-2', 'tenant-b', 'secret-two-ünïcode', now())`);
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'notifications',
      entities: [],
      migrations: schemaMigrations(notificationsService, { COMANDA_SECRETS_KEY: key }),
    });
    try {
      const rows: Array<Record<string, string>> = await after.query(
        'SELECT * FROM notifications.merchant_secrets ORDER BY merchant_id',
      );
      expect(Object.keys(rows[0] ?? {})).not.toContain('signing_secret');
      expect(JSON.stringify(rows)).not.toMatch(/secret-(one|two)/);
      const box = new SecretBox(Buffer.from(key, 'base64url'));
      expect(
        rows.map((row) =>
          box.open(
            row['signing_secret_sealed'],
            `notifications.merchant_secrets:${row['merchant_id']}`,
          ),
        ),
      ).toEqual(['secret-one-0123456789', 'secret-two-ünïcode']);
    } finally {
      await after.destroy();
    }
  });
});
