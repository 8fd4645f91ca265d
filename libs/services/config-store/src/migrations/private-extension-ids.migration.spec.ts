import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { CreateConfigStoreTables1720000000000 } from './1720000000000-create-config-store-tables.migration';
import { CONFIG_STORE_MIGRATIONS } from './config-store.migrations';

describe('migration: private extension ids per tenant (ADR 0016)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('extension_ids_migration');
  });
  afterAll(() => db.drop());

  it('keeps extensions saved before it, marking those with a public version as published', async () => {
    const before = await openDatabase({
      url: db.url,
      schema: 'config',
      entities: [],
      migrations: [...MESSAGING_MIGRATIONS, CreateConfigStoreTables1720000000000],
    });
    await before.query(`
      INSERT INTO config.extensions (id, entity, publisher, tenant_id, latest_version, created_at, updated_at)
      VALUES ('was-public', 'shop', 'alice', 'tenant-a', '2', now(), now()),
             ('private', 'shop', 'alice', 'tenant-a', '1', now(), now())`);
    await before.query(`
      INSERT INTO config.extension_versions (extension_id, version, availability, base_type, created_at, updated_at)
      VALUES ('was-public', '1', 'Public', 'Extension', now(), now()),
             ('was-public', '2', 'Private', 'Extension', now(), now()),
             ('private', '1', 'Private', 'Extension', now(), now())`);
    await before.destroy();

    const after = await openDatabase({
      url: db.url,
      schema: 'config',
      entities: [],
      migrations: [...MESSAGING_MIGRATIONS, ...CONFIG_STORE_MIGRATIONS],
    });
    try {
      expect(
        await after.query('SELECT id, tenant_id, published FROM config.extensions ORDER BY id'),
      ).toEqual([
        { id: 'private', tenant_id: 'tenant-a', published: false },
        { id: 'was-public', tenant_id: 'tenant-a', published: true },
      ]);
      expect(
        await after.query(
          'SELECT DISTINCT tenant_id FROM config.extension_versions ORDER BY tenant_id',
        ),
      ).toEqual([{ tenant_id: 'tenant-a' }]);
      // Another tenant may now take the private id, but not the published one.
      await after.query(`
        INSERT INTO config.extensions (id, entity, publisher, tenant_id, latest_version, created_at, updated_at, published)
        VALUES ('private', 'shop', 'bob', 'tenant-b', '1', now(), now(), true)`);
      await expect(
        after.query(`
          INSERT INTO config.extensions (id, entity, publisher, tenant_id, latest_version, created_at, updated_at, published)
          VALUES ('was-public', 'shop', 'bob', 'tenant-b', '1', now(), now(), true)`),
      ).rejects.toMatchObject({ driverError: { constraint: 'extensions_published_id_key' } });
    } finally {
      await after.destroy();
    }
  });
});
