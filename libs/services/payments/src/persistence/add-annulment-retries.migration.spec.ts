import { randomBytes, randomUUID } from 'node:crypto';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { paymentsService } from '../payments.service-definition';
import { CreatePaymentTables1764000000000 } from './create-payment-tables.migration';
import { sealMerchantAnnouncements } from './seal-merchant-announcements.migration';
import { sealMerchantSecrets } from './seal-merchant-secrets.migration';

async function payment(db: DataSource, state: string): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO payments.payments
       (id, tenant_id, order_id, merchant_id, payment_method, amount_value, currency, state)
     VALUES ($1, 'tenant-a', $2, 'm-1', 'card', 100, 'EUR', $3)`,
    [id, `order-${id}`, state],
  );
  return id;
}

async function operation(db: DataSource, paymentId: string, type: string, minutesAgo: number) {
  const id = randomUUID();
  await db.query(
    `INSERT INTO payments.payment_operations
       (id, payment_id, tenant_id, merchant_id, type, status, body, deadline_at, next_send_at, created_at)
     VALUES ($1, $2, 'tenant-a', 'm-1', $3, 'timed_out', '{}', now(), now(),
             now() - $4 * interval '1 minute')`,
    [id, paymentId, type, minutesAgo],
  );
  return id;
}

describe('migration: a payment remembers its latest annulment (ADR 0042)', () => {
  const key = randomBytes(32).toString('base64url');
  const box = new SecretBox(Buffer.from(key, 'base64url'));
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('payments_annulment_retries');
  });
  afterAll(() => db.drop());

  it('fills in the newest annulment of payments annulling or past it, and nothing else', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'payments',
      entities: [],
      migrations: [
        ...MESSAGING_MIGRATIONS,
        CreatePaymentTables1764000000000,
        sealMerchantSecrets(box),
        sealMerchantAnnouncements(box),
      ],
    });
    const failed = await payment(before, 'annulment_failed');
    await operation(before, failed, 'registration', 30);
    await operation(before, failed, 'annulment', 20);
    const newest = await operation(before, failed, 'annulment', 10);
    const authorized = await payment(before, 'authorized');
    await operation(before, authorized, 'registration', 5);
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'payments',
      entities: [],
      migrations: schemaMigrations(paymentsService, { COMANDA_SECRETS_KEY: key }),
    });
    try {
      const rows = (await after.query(
        `SELECT id, last_annulment_id, annulment_failures FROM payments.payments`,
      )) as Array<{ id: string; last_annulment_id: string | null; annulment_failures: number }>;
      const byId = new Map(rows.map((row) => [row.id, row]));
      expect(byId.get(failed)).toMatchObject({ last_annulment_id: newest, annulment_failures: 0 });
      expect(byId.get(authorized)).toMatchObject({
        last_annulment_id: null,
        annulment_failures: 0,
      });
    } finally {
      await after.destroy();
    }
  });
});
