import { randomBytes, randomUUID } from 'node:crypto';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { paymentsService } from '../payments.service-definition';
import { CreatePaymentTables1764000000000 } from './create-payment-tables.migration';

describe('migration: merchant secrets sealed at rest (ADR 0033)', () => {
  const key = randomBytes(32).toString('base64url');
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('payments_seal_secrets');
  });
  afterAll(() => db.drop());

  it('seals the secrets stored in clear before it, and drops the announcements that carried them', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'payments',
      entities: [],
      migrations: [...MESSAGING_MIGRATIONS, CreatePaymentTables1764000000000],
    });
    await before.query(`
      INSERT INTO payments.merchants (id, tenant_id, name, partner_url, signing_secret)
      VALUES ('m-1', 'tenant-a', 'One', 'https://one.example/payments', 'secret-one-0123456789'),
             ('m-2', 'tenant-b', 'Two', 'https://two.example/payments', 'secret-two-ünïcode')`);
    const announcement = (published: boolean, secret: string) =>
      before.query(
        `INSERT INTO payments.outbox (event_id, tenant_id, subject, event_type, event, published_at)
         VALUES ($1, 'tenant-a', 'm-1', $2, $3, $4)`,
        [
          randomUUID(),
          'payment.merchant_configured',
          JSON.stringify({ data: { merchantId: 'm-1', signingSecret: secret } }),
          published ? new Date() : null,
        ],
      );
    await announcement(true, 'secret-one-0123456789');
    await announcement(false, 'secret-one-0123456789');
    await before.query(
      `INSERT INTO payments.outbox (event_id, tenant_id, subject, event_type, event, published_at)
       VALUES ($1, 'tenant-a', 'o-1', 'payment.captured', '{}', now())`,
      [randomUUID()],
    );
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'payments',
      entities: [],
      migrations: schemaMigrations(paymentsService, { COMANDA_SECRETS_KEY: key }),
    });
    try {
      const rows: Array<Record<string, string>> = await after.query(
        'SELECT * FROM payments.merchants ORDER BY id',
      );
      expect(rows.map((row) => Object.keys(row))).not.toContainEqual(
        expect.arrayContaining(['signing_secret']),
      );
      expect(JSON.stringify(rows)).not.toMatch(/secret-(one|two)/);
      const box = new SecretBox(Buffer.from(key, 'base64url'));
      expect(
        rows.map((row) =>
          box.open(row['signing_secret_sealed'], `payments.merchants:${row['id']}`),
        ),
      ).toEqual(['secret-one-0123456789', 'secret-two-ünïcode']);
      // Published announcements are gone; the one still to send, and other events, stay.
      expect(
        await after.query(
          'SELECT event_type, published_at IS NULL AS pending FROM payments.outbox ORDER BY position',
        ),
      ).toEqual([
        { event_type: 'payment.merchant_configured', pending: true },
        { event_type: 'payment.captured', pending: false },
      ]);
    } finally {
      await after.destroy();
    }
  });

  it('does not start without COMANDA_SECRETS_KEY', () => {
    expect(() => schemaMigrations(paymentsService, {})).toThrow(
      /the payments service refuses to start without COMANDA_SECRETS_KEY/,
    );
  });
});
