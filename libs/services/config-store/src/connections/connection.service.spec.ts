import { openConfigStoreKit, type ConfigStoreKit } from '../testing/config-store-test-kit';
import type { ConnectionOutput } from './connection.output';

const alice = { clientId: 'alice', tenantId: 'tenant-a' };
const bob = { clientId: 'bob', tenantId: 'tenant-b' };

describe('ConnectionService (real database)', () => {
  let kit: ConfigStoreKit;
  beforeAll(async () => {
    kit = await openConfigStoreKit('connection_service');
  });
  afterAll(() => kit.close());

  async function pageThrough(entity: string, limit: number): Promise<ConnectionOutput[][]> {
    const pages: ConnectionOutput[][] = [];
    let createdAfter: Date | undefined;
    for (;;) {
      const page = await kit.connections.list(alice, entity, { page: { createdAfter, limit } });
      if (page.length === 0) return pages;
      pages.push(page);
      createdAfter = new Date(page[page.length - 1].createdAt);
    }
  }

  it('pages 45 connections created at one and the same clock time as 20+20+5 with no duplicate and no gap', async () => {
    // The manual clock is frozen: every create reads the same "now".
    await Promise.all(
      Array.from({ length: 45 }, (_unused, index) =>
        kit.connections.create(alice, 'tied', {
          id: `c-${String(index).padStart(2, '0')}`,
          entityType: 'Config',
        }),
      ),
    );
    const pages = await pageThrough('tied', 20);
    expect(pages.map((page) => page.length)).toEqual([20, 20, 5]);
    const ids = pages.flat().map((connection) => connection.id);
    expect(new Set(ids).size).toBe(45);
    const createdAt = pages.flat().map((connection) => connection.createdAt);
    expect([...createdAt].sort()).toEqual(createdAt);
  });

  it('filters by entity_id and entity_type and hides other tenants', async () => {
    await kit.connections.create(alice, 'filters', { id: 'shared', entityType: 'Type' });
    await kit.connections.create(alice, 'filters', { id: 'shared', entityType: 'Value' });
    await kit.connections.create(alice, 'filters', { id: 'other', entityType: 'Value' });
    await kit.connections.create(bob, 'filters', { id: 'shared', entityType: 'Value' });
    const page = { limit: 20 };
    const byId = await kit.connections.list(alice, 'filters', { entityId: 'shared', page });
    expect(byId.map((c) => c.entityType)).toEqual(['Type', 'Value']);
    const byType = await kit.connections.list(alice, 'filters', { entityType: 'Value', page });
    expect(byType.map((c) => c.id)).toEqual(['shared', 'other']);
    expect(byType.every((c) => c.publisher === 'alice')).toBe(true);
  });

  it('refuses a second live connection of one id and type, and needs entity_type when an id has several', async () => {
    await kit.connections.create(alice, 'dupes', { id: 'x', entityType: 'Schema' });
    await expect(
      kit.connections.create(alice, 'dupes', { id: 'x', entityType: 'Schema' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'connection.already_exists',
    });
    await kit.connections.create(alice, 'dupes', { id: 'x', entityType: 'Reference' });
    await expect(
      kit.connections.get(alice, 'dupes', 'x', { includeDeleted: false }),
    ).rejects.toMatchObject({
      code: 'connection.ambiguous',
    });
    await expect(
      kit.connections.get(alice, 'dupes', 'x', { entityType: 'Reference', includeDeleted: false }),
    ).resolves.toMatchObject({ entityType: 'Reference' });
  });

  it('updates, then removes; a removed connection reads only with include_deleted', async () => {
    const created = await kit.connections.create(alice, 'life', { id: 'a', entityType: 'Config' });
    kit.clock.advance(1000);
    await kit.connections.update(alice, 'life', 'a', { id: 'b', entityType: 'Extension' });
    const renamed = await kit.connections.get(alice, 'life', 'b', { includeDeleted: false });
    expect(renamed).toMatchObject({
      id: 'b',
      entityType: 'Extension',
      createdAt: created.createdAt,
    });
    expect(renamed.lastUpdateDate).not.toBe(created.lastUpdateDate);
    const removed = await kit.connections.remove(alice, 'life', 'b', {});
    expect(removed).toMatchObject({ id: 'b', deleted: true });
    await expect(
      kit.connections.get(alice, 'life', 'b', { includeDeleted: false }),
    ).rejects.toMatchObject({
      code: 'connection.not_found',
    });
    await expect(
      kit.connections.get(alice, 'life', 'b', { includeDeleted: true }),
    ).resolves.toMatchObject({ deleted: true });
    expect(await kit.connections.list(alice, 'life', { page: { limit: 20 } })).toEqual([]);
    await expect(
      kit.connections.update(alice, 'life', 'b', { id: 'b', entityType: 'Config' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(
      (await kit.outboxTypes()).filter((type) => type.startsWith('connection.')).slice(-3),
    ).toEqual(['connection.created', 'connection.updated', 'connection.deleted']);
  });
});
