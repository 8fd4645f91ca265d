import { randomBytes, randomUUID } from 'node:crypto';
import { merchantAnnouncementLabel } from '@comanda/contracts';
import { MESSAGING_MIGRATIONS, RETRY_TIMER } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { notificationsService } from '../notifications.service-definition';
import { CreateNotificationTables1763900000000 } from './create-notification-tables.migration';
import { sealMerchantSecrets } from './seal-merchant-secrets.migration';

const ANNOUNCEMENT = 'payment.merchant_configured';

function announcement(data: object, type = ANNOUNCEMENT) {
  return { id: randomUUID(), type, subject: 'm', tenantid: 'tenant-a', data };
}

async function deadLetter(db: DataSource, consumer: string, event: { id: string; type: string }) {
  await db.query(
    `INSERT INTO notifications.dead_letters (consumer, event_id, event_type, tenant_id, event, error, attempts)
     VALUES ($1, $2, $3, 'tenant-a', $4, 'failed', 5)`,
    [consumer, event.id, event.type, JSON.stringify(event)],
  );
}

async function timer(db: DataSource, name: string, key: string, payload: object) {
  await db.query(
    `INSERT INTO notifications.timers (name, key, fire_at, next_attempt_at, payload)
     VALUES ($1, $2, now(), now(), $3)`,
    [name, key, JSON.stringify(payload)],
  );
}

describe('migration: announcements kept by notifications sealed (ADR 0039)', () => {
  const key = randomBytes(32).toString('base64url');
  const box = new SecretBox(Buffer.from(key, 'base64url'));
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('notifications_seal_kept_announcements');
  });
  afterAll(() => db.drop());

  it('seals the clear secrets of dead-lettered and retried announcements, touching nothing else', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'notifications',
      entities: [],
      migrations: [
        ...MESSAGING_MIGRATIONS,
        CreateNotificationTables1763900000000,
        sealMerchantSecrets(box),
      ],
    });
    const sealedBefore = box.seal('sealed-already-m3', merchantAnnouncementLabel('m-3'));
    const consumer = 'notifications.merchant-configured';
    await deadLetter(
      before,
      'c-1',
      announcement({ merchantId: 'm-1', signingSecret: 'clear-dead-m1' }),
    );
    await deadLetter(before, 'c-2', announcement({ signingSecret: 'clear-no-merchant' }));
    await deadLetter(
      before,
      'c-3',
      announcement({ merchantId: 'm-3', signingSecretSealed: sealedBefore }),
    );
    await deadLetter(
      before,
      'c-4',
      announcement({ merchantId: 'm-4', signingSecret: 'not an announcement' }, 'payment.other'),
    );
    const retried = announcement({ merchantId: 'm-2', signingSecret: 'clear-retry-ünï' });
    await timer(before, RETRY_TIMER, `${consumer}/${retried.id}`, {
      consumer,
      event: retried,
      headers: {},
      attempt: 2,
      lastError: 'failed',
    });
    await timer(before, 'another.timer', 'k-1', {
      event: announcement({ merchantId: 'm-5', signingSecret: 'kept-by-another-timer' }),
    });
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'notifications',
      entities: [],
      migrations: schemaMigrations(notificationsService, { COMANDA_SECRETS_KEY: key }),
    });
    try {
      const dead = (await after.query(
        `SELECT consumer, event FROM notifications.dead_letters ORDER BY consumer`,
      )) as Array<{ consumer: string; event: { data: Record<string, string> } }>;
      const data = new Map(dead.map((row) => [row.consumer, row.event.data]));

      const m1 = data.get('c-1') ?? {};
      expect(Object.keys(m1).sort()).toEqual(['merchantId', 'signingSecretSealed']);
      expect(box.open(m1.signingSecretSealed, merchantAnnouncementLabel('m-1'))).toBe(
        'clear-dead-m1',
      );
      expect(data.get('c-2')).toEqual({});
      expect(data.get('c-3')).toEqual({ merchantId: 'm-3', signingSecretSealed: sealedBefore });
      expect(data.get('c-4')).toEqual({ merchantId: 'm-4', signingSecret: 'not an announcement' });

      const timers = (await after.query(
        `SELECT name, payload FROM notifications.timers ORDER BY name`,
      )) as Array<{
        name: string;
        payload: { attempt?: number; event: { id: string; data: Record<string, string> } };
      }>;
      const [other, retry] = timers;
      expect(other.payload.event.data).toEqual({
        merchantId: 'm-5',
        signingSecret: 'kept-by-another-timer',
      });
      expect(retry.name).toBe(RETRY_TIMER);
      expect(retry.payload.attempt).toBe(2);
      expect(retry.payload.event.id).toBe(retried.id);
      expect(Object.keys(retry.payload.event.data).sort()).toEqual([
        'merchantId',
        'signingSecretSealed',
      ]);
      expect(
        box.open(retry.payload.event.data.signingSecretSealed, merchantAnnouncementLabel('m-2')),
      ).toBe('clear-retry-ünï');
    } finally {
      await after.destroy();
    }
  });
});
