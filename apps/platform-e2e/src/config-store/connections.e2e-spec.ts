import type { ConnectionOutput } from '@comanda/service-config-store';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { freshEntity, integrator, type Integrator } from './config-store-api';

describe('config store: connections through the gateway', () => {
  let platform: TestPlatform;
  let alice: Integrator;
  let bob: Integrator;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_connections');
    alice = await integrator(platform, 'tenant-connections-a');
    bob = await integrator(platform, 'tenant-connections-b');
  }, 120_000);
  afterAll(() => platform?.close());

  const connections = (entity: string) => `/entities/${entity}/connections`;

  async function create(
    entity: string,
    id: string,
    entityType = 'Config',
  ): Promise<ConnectionOutput> {
    const response = await alice.call<ConnectionOutput>('POST', connections(entity), {
      body: { id, entityType },
    });
    expect(response.status).toBe(200);
    return response.body;
  }

  it('POST /connections answers the connection output with publisher and an RFC 3339 UTC lastUpdateDate', async () => {
    const entity = freshEntity('create');
    const created = await alice.call<ConnectionOutput>('POST', connections(entity), {
      body: { id: 'store-1', entityType: 'Type' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: 'store-1',
      entityType: 'Type',
      publisher: alice.clientId,
    });
    expect(created.body.lastUpdateDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const duplicate = await alice.call('POST', connections(entity), {
      body: { id: 'store-1', entityType: 'Type' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 'connection.already_exists' });
  });

  it('accepts exactly Type, Extension, Config, Schema, Value and Reference as entityType; anything else is 400', async () => {
    const entity = freshEntity('types');
    for (const entityType of ['Type', 'Extension', 'Config', 'Schema', 'Value', 'Reference']) {
      expect(
        (await alice.call('POST', connections(entity), { body: { id: 'x', entityType } })).status,
      ).toBe(200);
    }
    for (const entityType of ['type', 'CONFIG', 'Plugin', '', 3]) {
      const response = await alice.call('POST', connections(entity), {
        body: { id: 'y', entityType },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'request.invalid',
        errors: [expect.objectContaining({ path: 'entityType' })],
      });
    }
    expect((await alice.call('GET', `${connections(entity)}?entity_type=value`)).status).toBe(400);
    expect((await alice.call('GET', `${connections(entity)}/x?entity_type=Values`)).status).toBe(
      400,
    );
  });

  it('GET /connections pages 20 by default, ascending by creation, and filters by entity_id and entity_type', async () => {
    const entity = freshEntity('list');
    for (let index = 0; index < 22; index += 1)
      await create(entity, `c-${String(index).padStart(2, '0')}`, index % 2 ? 'Value' : 'Schema');
    await bob.call('POST', connections(entity), { body: { id: 'c-00', entityType: 'Schema' } });
    const firstPage = await alice.call<ConnectionOutput[]>('GET', connections(entity));
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.map((connection) => connection.id)).toEqual(
      Array.from({ length: 20 }, (_unused, index) => `c-${String(index).padStart(2, '0')}`),
    );
    const values = await alice.call<ConnectionOutput[]>(
      'GET',
      `${connections(entity)}?entity_type=Value&limit=100`,
    );
    expect(values.body).toHaveLength(11);
    expect(values.body.every((connection) => connection.entityType === 'Value')).toBe(true);
    const one = await alice.call<ConnectionOutput[]>(
      'GET',
      `${connections(entity)}?entity_id=c-05`,
    );
    expect(one.body).toEqual([
      expect.objectContaining({ id: 'c-05', entityType: 'Value', publisher: alice.clientId }),
    ]);
    // Given twice, it is refused as every other parameter is, not taken to match nothing.
    const twice = await alice.call('GET', `${connections(entity)}?entity_id=c-05&entity_id=c-05`);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      code: 'request.invalid',
      errors: [expect.objectContaining({ path: 'entity_id' })],
    });
  });

  it('pages 45 connections created together as 20+20+5 with no duplicate and no gap', async () => {
    const entity = freshEntity('pages');
    // Created all at once: many land in the same millisecond of the wall clock.
    await Promise.all(Array.from({ length: 45 }, (_unused, index) => create(entity, `p-${index}`)));
    const pages: ConnectionOutput[][] = [];
    let offset: string | undefined;
    for (;;) {
      const query = offset
        ? `?limit=20&created_at_offset=${encodeURIComponent(offset)}`
        : '?limit=20';
      const page = await alice.call<ConnectionOutput[]>('GET', `${connections(entity)}${query}`);
      expect(page.status).toBe(200);
      if (page.body.length === 0) break;
      pages.push(page.body);
      offset = page.body[page.body.length - 1].createdAt;
    }
    expect(pages.map((page) => page.length)).toEqual([20, 20, 5]);
    const ids = pages.flat().map((connection) => connection.id);
    expect(new Set(ids)).toEqual(
      new Set(Array.from({ length: 45 }, (_unused, index) => `p-${index}`)),
    );
  });

  it('answers 400 for a limit outside 1..100 and a created_at_offset that is not RFC 3339', async () => {
    const entity = freshEntity('bad-page');
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=-5',
      'limit=ten',
      'created_at_offset=yesterday',
      'created_at_offset=2025-01-01',
      'created_at_offset=2025-02-30T00:00:00Z',
      'created_at_offset=2025-01-01T24:00:00Z',
      'entity_id=a%00b',
    ]) {
      const response = await alice.call('GET', `${connections(entity)}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'request.invalid' });
    }
    expect((await alice.call('GET', `${connections(entity)}?limit=100`)).status).toBe(200);
  });

  it('GET /connections/{id} answers the connection, narrowed by entity_type, and hides removed ones unless include_deleted=true', async () => {
    const entity = freshEntity('get');
    await create(entity, 'shared', 'Config');
    await create(entity, 'shared', 'Value');
    const typed = await alice.call<ConnectionOutput>(
      'GET',
      `${connections(entity)}/shared?entity_type=Value`,
    );
    expect(typed.status).toBe(200);
    expect(typed.body).toMatchObject({ id: 'shared', entityType: 'Value' });
    expect((await alice.call('GET', `${connections(entity)}/shared`)).body).toMatchObject({
      status: 409,
      code: 'connection.ambiguous',
    });
    expect((await bob.call('GET', `${connections(entity)}/shared?entity_type=Value`)).status).toBe(
      404,
    );

    await alice.call('DELETE', `${connections(entity)}/shared?entity_type=Value`);
    const hidden = await alice.call('GET', `${connections(entity)}/shared?entity_type=Value`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ code: 'connection.not_found' });
    expect(
      (
        await alice.call(
          'GET',
          `${connections(entity)}/shared?entity_type=Value&include_deleted=false`,
        )
      ).status,
    ).toBe(404);
    const shown = await alice.call<ConnectionOutput>(
      'GET',
      `${connections(entity)}/shared?entity_type=Value&include_deleted=true`,
    );
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: 'shared', entityType: 'Value', deleted: true });
  });

  it('PUT /connections/{id} answers 200 with an empty body and the change reads back', async () => {
    const entity = freshEntity('put');
    const created = await create(entity, 'old-id', 'Config');
    const updated = await alice.call('PUT', `${connections(entity)}/old-id`, {
      body: { id: 'new-id', entityType: 'Reference' },
    });
    expect(updated.status).toBe(200);
    expect(updated.text).toBe('');
    const read = await alice.call<ConnectionOutput>('GET', `${connections(entity)}/new-id`);
    expect(read.body).toMatchObject({
      id: 'new-id',
      entityType: 'Reference',
      publisher: alice.clientId,
    });
    expect(Date.parse(read.body.lastUpdateDate)).toBeGreaterThanOrEqual(
      Date.parse(created.lastUpdateDate),
    );
    expect(
      (
        await alice.call('PUT', `${connections(entity)}/missing`, {
          body: { id: 'missing', entityType: 'Config' },
        })
      ).status,
    ).toBe(404);
  });

  it('DELETE /connections/{id} answers the removed connection and it leaves the list', async () => {
    const entity = freshEntity('delete');
    await create(entity, 'gone', 'Schema');
    // Sent as many HTTP clients send every request: with a JSON Content-Type, without a body.
    const removed = await alice.call<ConnectionOutput>(
      'DELETE',
      `${connections(entity)}/gone?entity_type=Schema`,
      { headers: { 'content-type': 'application/json' } },
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({
      id: 'gone',
      entityType: 'Schema',
      publisher: alice.clientId,
      deleted: true,
    });
    expect((await alice.call('GET', connections(entity))).body).toEqual([]);
    expect(
      (await alice.call('DELETE', `${connections(entity)}/gone?entity_type=Schema`)).status,
    ).toBe(404);
  });

  it('answers 400, never 500, for a connection id with a NUL character, in the body or the path', async () => {
    const entity = freshEntity('nul');
    const created = await alice.call('POST', connections(entity), {
      body: { id: 'a\u0000b', entityType: 'Type' },
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'request.invalid', errors: [{ path: 'id' }] });
    for (const method of ['GET', 'DELETE']) {
      const response = await alice.call(method, `${connections(entity)}/a%00b`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'request.invalid' });
    }
    const updated = await alice.call('PUT', `${connections(entity)}/a%00b`, {
      body: { id: 'a', entityType: 'Type' },
    });
    expect(updated.status).toBe(400);
  });

  it('creates only connections its path can name again: 200 UTF-16 units at most, never . or ..', async () => {
    const entity = freshEntity('addressable');
    // 100 emoji are 200 UTF-16 units: the longest id, created and read back by its path.
    const longest = '🍕'.repeat(100);
    await create(entity, longest);
    const read = await alice.call<ConnectionOutput>(
      'GET',
      `${connections(entity)}/${encodeURIComponent(longest)}`,
    );
    expect([read.status, read.body.id]).toEqual([200, longest]);
    for (const id of ['🍕'.repeat(101), '.', '..']) {
      const refused = await alice.call('POST', connections(entity), {
        body: { id, entityType: 'Type' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'request.invalid', errors: [{ path: 'id' }] });
    }
  });

  it('needs connections:write to create and connections:read to list', async () => {
    const reader = await integrator(platform, 'tenant-connections-a', ['connections:read']);
    const entity = freshEntity('perm');
    expect(
      (await reader.call('POST', connections(entity), { body: { id: 'p', entityType: 'Type' } }))
        .status,
    ).toBe(403);
    expect((await reader.call('GET', connections(entity))).status).toBe(200);
    const writerOnly = await integrator(platform, 'tenant-connections-a', ['configs:read']);
    expect((await writerOnly.call('GET', connections(entity))).status).toBe(403);
  });
});
