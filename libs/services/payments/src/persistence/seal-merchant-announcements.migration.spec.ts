import { randomBytes, randomUUID } from 'node:crypto';
import { merchantAnnouncementLabel } from '@comanda/contracts';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { paymentsService } from '../payments.service-definition';
import { CreatePaymentTables1764000000000 } from './create-payment-tables.migration';
import { sealMerchantSecrets } from './seal-merchant-secrets.migration';

describe('migration: merchant announcements sealed in the outbox (ADR 0039)', () => {
  const key = randomBytes(32).toString('base64url');
  const box = new SecretBox(Buffer.from(key, 'base64url'));
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('payments_seal_announcements');
  });
  afterAll(() => db.drop());

  it('drops the published announcements that carried a secret in clear and seals those still to send', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'payments',
      entities: [],
      migrations: [
        ...MESSAGING_MIGRATIONS,
        CreatePaymentTables1764000000000,
        sealMerchantSecrets(box),
      ],
    });
    const announce = (merchantId: string, published: boolean, data: object) =>
      before.query(
        `INSERT INTO payments.outbox (event_id, tenant_id, subject, event_type, event, published_at)
         VALUES ($1, 'tenant-a', $2, 'payment.merchant_configured', $3, $4)`,
        [
          randomUUID(),
          merchantId,
          JSON.stringify({ type: 'payment.merchant_configured', subject: merchantId, data }),
          published ? new Date() : null,
        ],
      );
    await announce('m-1', true, { merchantId: 'm-1', signingSecret: 'clear-published-m1' });
    await announce('m-2', false, { merchantId: 'm-2', signingSecret: 'clear-pending-ünï' });
    const sealed = box.seal('sealed-published-m3', merchantAnnouncementLabel('m-3'));
    await announce('m-3', true, { merchantId: 'm-3', signingSecretSealed: sealed });
    await before.query(
      `INSERT INTO payments.outbox (event_id, tenant_id, subject, event_type, event, published_at)
       VALUES ($1, 'tenant-a', 'o-1', 'payment.captured', '{"data":{"signingSecret":"not one"}}', now())`,
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
      const rows = (await after.query(
        `SELECT subject, event_type, published_at IS NULL AS pending, event
           FROM payments.outbox ORDER BY position`,
      )) as Array<{
        subject: string;
        event_type: string;
        pending: boolean;
        event: { type?: string; data: Record<string, string> };
      }>;
      expect(rows.map(({ subject, pending }) => ({ subject, pending }))).toEqual([
        { subject: 'm-2', pending: true },
        { subject: 'm-3', pending: false },
        { subject: 'o-1', pending: false },
      ]);
      const [pending, published, other] = rows;
      expect(Object.keys(pending.event.data).sort()).toEqual(['merchantId', 'signingSecretSealed']);
      expect(pending.event.type).toBe('payment.merchant_configured');
      expect(
        box.open(pending.event.data.signingSecretSealed, merchantAnnouncementLabel('m-2')),
      ).toBe('clear-pending-ünï');
      expect(published.event.data).toEqual({ merchantId: 'm-3', signingSecretSealed: sealed });
      // Other events are not announcements, whatever their data holds.
      expect(other.event.data).toEqual({ signingSecret: 'not one' });
      expect(JSON.stringify(rows.slice(0, 2))).not.toMatch(/clear-/);
    } finally {
      await after.destroy();
    }
  });
});
