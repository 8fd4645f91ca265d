import type { ExtensionOutput, ExtensionSummaryOutput } from '@comanda/service-config-store';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { freshEntity, integrator, type ApiResponse, type Integrator } from './config-store-api';

describe('config store: extensions through the gateway', () => {
  let platform: TestPlatform;
  let alice: Integrator;
  let bob: Integrator;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_extensions');
    alice = await integrator(platform, 'tenant-extensions-a');
    bob = await integrator(platform, 'tenant-extensions-b');
  }, 120_000);
  afterAll(() => platform?.close());

  const extensions = (entity: string) => `/entities/${entity}/extensions`;
  let sequence = 0;
  const freshId = (label: string) => `${label}-${(sequence += 1)}-${Date.now().toString(36)}`;

  async function publish(
    who: Integrator,
    entity: string,
    body: {
      id: string;
      version: string;
      availability: 'Public' | 'Private';
      [key: string]: unknown;
    },
  ): Promise<ExtensionOutput> {
    const response = await who.call<ExtensionOutput>('POST', extensions(entity), { body });
    expect(response.status).toBe(200);
    return response.body;
  }

  it('POST /extensions answers the complete output; another publisher POSTing a taken id gets 409 extension.id_taken', async () => {
    const entity = freshEntity('create');
    const id = freshId('loyalty');
    const created = await alice.call<ExtensionOutput>('POST', extensions(entity), {
      body: { id, version: '1.0.0', availability: 'Public', extensionReferences: {} },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id,
      version: '1.0.0',
      availability: 'Public',
      baseType: 'Extension',
      publisher: alice.clientId,
      entity,
      extensionReferences: {},
      deleted: false,
    });
    expect(created.headers.get('etag')).toBe('"1"');
    const taken = await bob.call('POST', extensions(freshEntity('other')), {
      body: { id, version: '2.0.0', availability: 'Public' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'extension.id_taken' });
    // The same publisher under another entity: told where the extension lives, a PUT that works.
    const again = await alice.call<{ code: string; detail: string }>(
      'POST',
      extensions(freshEntity('elsewhere')),
      { body: { id, version: '2.0.0', availability: 'Public' } },
    );
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('extension.already_exists');
    const advised = /PUT (\S+)\.$/.exec(again.body.detail)?.[1] ?? '';
    expect(advised).toBe(`${extensions(entity)}/${id}`);
    const put = await alice.call('PUT', advised, {
      body: { id, version: '2.0.0', availability: 'Public' },
    });
    expect(put.status).toBe(200);
    expect(
      (
        await bob.call('POST', extensions('availability-check'), {
          body: { id: freshId('x'), version: '1', availability: 'Shared' },
        })
      ).status,
    ).toBe(400);
  });

  it('a private id of tenant A answers tenant B as an unused id: B may create it, privately or publicly, and A keeps its own', async () => {
    const entity = freshEntity('private-ids');
    const id = freshId('hush');
    await publish(alice, entity, { id, version: 'a1', availability: 'Private' });
    const unused = freshId('unused');
    // Every answer B gets about A's private id is the answer for an id nobody used.
    for (const [method, suffix] of [
      ['GET', '?include_private=true'],
      ['DELETE', ''],
    ] as const) {
      const hidden = await bob.call(method, `${extensions(entity)}/${id}${suffix}`);
      const missing = await bob.call(method, `${extensions(entity)}/${unused}${suffix}`);
      expect(hidden.status).toBe(404);
      // The same problem, but for the id it names and the request it answers.
      const normalized = (text: string, named: string) =>
        JSON.parse(text.split(named).join('<id>'), (key, value: unknown) =>
          ['requestId', 'instance'].includes(key) ? undefined : value,
        ) as unknown;
      expect(normalized(hidden.text, id)).toEqual(normalized(missing.text, unused));
    }
    const created = await bob.call<ExtensionOutput>('POST', extensions(entity), {
      body: { id, version: 'b1', availability: 'Private' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id, publisher: bob.clientId, version: 'b1' });

    const read = (who: Integrator) =>
      who.call<ExtensionOutput>('GET', `${extensions(entity)}/${id}?include_private=true`);
    expect((await read(alice)).body).toMatchObject({ publisher: alice.clientId, version: 'a1' });
    expect((await read(bob)).body).toMatchObject({ publisher: bob.clientId, version: 'b1' });

    // B publishes its id: allowed; A still reads its own, and sees B's in the list.
    const published = await bob.call<ExtensionOutput>('PUT', `${extensions(entity)}/${id}`, {
      body: { id, version: 'b2', availability: 'Public' },
    });
    expect(published.status).toBe(200);
    expect((await read(alice)).body).toMatchObject({ publisher: alice.clientId, version: 'a1' });
    const listed = await alice.call<ExtensionSummaryOutput[]>(
      'GET',
      `${extensions(entity)}?include_private=true`,
    );
    expect(listed.body.map((extension) => [extension.id, extension.publisher])).toEqual([
      [id, alice.clientId],
      [id, bob.clientId],
    ]);
    // Now the id is published by B, A cannot publish it too: 409, about a public extension.
    const clash = await alice.call('PUT', `${extensions(entity)}/${id}`, {
      body: { id, version: 'a2', availability: 'Public' },
    });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 'extension.id_taken' });
  });

  it('GET /extensions lists the minimal model by default (complete=false) and the complete model with complete=true', async () => {
    const entity = freshEntity('models');
    const id = freshId('model');
    await publish(alice, entity, { id, version: '1.0.0', availability: 'Public' });
    const minimal = await bob.call<ExtensionSummaryOutput[]>('GET', extensions(entity));
    expect(minimal.status).toBe(200);
    expect(minimal.body).toEqual([
      {
        availability: 'Public',
        baseType: 'Extension',
        publisher: alice.clientId,
        id,
        version: '1.0.0',
      },
    ]);
    const complete = await bob.call<ExtensionOutput[]>(
      'GET',
      `${extensions(entity)}?complete=true`,
    );
    expect(complete.body).toEqual([
      expect.objectContaining({
        id,
        extensionReferences: {},
        deleted: false,
        createdAt: expect.any(String),
        lastUpdateDate: expect.any(String),
      }),
    ]);
  });

  it('GET /extensions pages 20 by default and continues after created_at_offset', async () => {
    const entity = freshEntity('pages');
    for (let index = 0; index < 23; index += 1)
      await publish(alice, entity, {
        id: freshId(`page-${index}`),
        version: '1',
        availability: 'Public',
      });
    const first = await alice.call<ExtensionOutput[]>('GET', `${extensions(entity)}?complete=true`);
    expect(first.body).toHaveLength(20);
    const offset = encodeURIComponent(first.body[19].createdAt);
    const second = await alice.call<ExtensionOutput[]>(
      'GET',
      `${extensions(entity)}?complete=true&created_at_offset=${offset}`,
    );
    expect(second.body).toHaveLength(3);
    expect(new Set([...first.body, ...second.body].map((extension) => extension.id)).size).toBe(23);
    expect((await alice.call('GET', `${extensions(entity)}?limit=101`)).status).toBe(400);

    // The minimal model has no createdAt: each full page links to the next one instead.
    const seen: string[] = [];
    let path: string | undefined = `${extensions(entity)}?limit=10`;
    while (path !== undefined) {
      const page: ApiResponse<Array<{ id: string }>> = await alice.call('GET', path);
      expect(page.status).toBe(200);
      seen.push(...page.body.map((extension) => extension.id));
      path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
  });

  it('a private extension of tenant A is invisible to tenant B, and to A without include_private=true; a public one is visible to both', async () => {
    const entity = freshEntity('private');
    const secret = freshId('secret');
    const open = freshId('open');
    await publish(alice, entity, { id: secret, version: '1', availability: 'Private' });
    await publish(alice, entity, { id: open, version: '1', availability: 'Public' });
    const ids = async (who: Integrator, query: string) =>
      (await who.call<ExtensionSummaryOutput[]>('GET', `${extensions(entity)}${query}`)).body.map(
        (extension) => extension.id,
      );

    expect(await ids(alice, '')).toEqual([open]);
    expect(await ids(alice, '?include_private=false')).toEqual([open]);
    expect(await ids(alice, '?include_private=true')).toEqual([secret, open]);
    expect(await ids(bob, '?include_private=true')).toEqual([open]);

    expect((await alice.call('GET', `${extensions(entity)}/${secret}`)).status).toBe(404);
    expect(
      (await alice.call('GET', `${extensions(entity)}/${secret}?include_private=true`)).status,
    ).toBe(200);
    expect(
      (await bob.call('GET', `${extensions(entity)}/${secret}?include_private=true`)).status,
    ).toBe(404);
    expect((await bob.call('GET', `${extensions(entity)}/${open}`)).status).toBe(200);
    // Nor may tenant B's config reference it.
    const reference = await bob.call('POST', `/entities/${entity}/configs/dry-run`, {
      body: {
        id: 'c',
        extensionReferences: [{ publisher: alice.clientId, dataId: secret, version: '1' }],
      },
    });
    expect(reference.status).toBe(422);
  });

  it('GET /extensions/{id} answers the latest version with an ETag while older versions stay referenceable', async () => {
    const entity = freshEntity('latest');
    const id = freshId('tips');
    await publish(alice, entity, { id, version: '1.0.0', availability: 'Public' });
    await alice.call('PUT', `${extensions(entity)}/${id}`, {
      body: { id, version: '1.1.0', availability: 'Public' },
    });
    const latest = await bob.call<ExtensionOutput>('GET', `${extensions(entity)}/${id}`);
    expect(latest.status).toBe(200);
    expect(latest.body.version).toBe('1.1.0');
    expect(latest.headers.get('etag')).toBe('"2"');
    const pinned = await bob.call('POST', `/entities/${entity}/configs`, {
      body: {
        id: 'pins-old',
        extensionReferences: [{ publisher: alice.clientId, dataId: id, version: '1.0.0' }],
      },
    });
    expect(pinned.status).toBe(200);
  });

  it('PUT /extensions/{id} saves a version, and a stale If-Match loses with 409', async () => {
    const entity = freshEntity('put');
    const id = freshId('put');
    const created = await alice.call('POST', extensions(entity), {
      body: { id, version: '1', availability: 'Public' },
    });
    const etag = created.headers.get('etag') as string;
    const updated = await alice.call<ExtensionOutput>('PUT', `${extensions(entity)}/${id}`, {
      body: { id, version: '2', availability: 'Private', baseType: 'Payment' },
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      version: '2',
      availability: 'Private',
      baseType: 'Payment',
    });
    const stale = await alice.call('PUT', `${extensions(entity)}/${id}`, {
      body: { id, version: '3', availability: 'Public' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'config.version_conflict' });
    expect(
      (
        await alice.call('PUT', `${extensions(entity)}/missing-${id}`, {
          body: { id: `missing-${id}`, version: '1', availability: 'Public' },
        })
      ).status,
    ).toBe(404);
  });

  it('DELETE /extensions/{id} marks it removed; afterwards it comes back only with include_deleted=true', async () => {
    const entity = freshEntity('delete');
    const id = freshId('old');
    await publish(alice, entity, { id, version: '1', availability: 'Public' });
    const removed = await alice.call<ExtensionOutput>('DELETE', `${extensions(entity)}/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id, deleted: true });

    expect((await alice.call('GET', `${extensions(entity)}/${id}`)).status).toBe(404);
    expect(
      (await alice.call('GET', `${extensions(entity)}/${id}?include_deleted=false`)).status,
    ).toBe(404);
    expect(
      (await alice.call<ExtensionOutput>('GET', `${extensions(entity)}/${id}?include_deleted=true`))
        .body,
    ).toMatchObject({ deleted: true });
    expect((await alice.call('GET', extensions(entity))).body).toEqual([]);
    expect(
      (
        await alice.call<ExtensionSummaryOutput[]>(
          'GET',
          `${extensions(entity)}?include_deleted=true`,
        )
      ).body,
    ).toEqual([expect.objectContaining({ id })]);
    const body = { id, version: '2', availability: 'Public' };
    expect((await alice.call('PUT', `${extensions(entity)}/${id}`, { body })).status).toBe(404);
    expect(
      (await alice.call('PUT', `${extensions(entity)}/${id}?include_deleted=true`, { body }))
        .status,
    ).toBe(200);
    expect((await alice.call('GET', `${extensions(entity)}/${id}`)).status).toBe(200);
  });

  it('only the publisher may change or remove an extension', async () => {
    const entity = freshEntity('owner');
    const id = freshId('owned');
    await publish(alice, entity, { id, version: '1', availability: 'Public' });
    const body = { id, version: '2', availability: 'Public' };
    expect((await bob.call('PUT', `${extensions(entity)}/${id}`, { body })).body).toMatchObject({
      status: 409,
      code: 'extension.not_publisher',
    });
    expect((await bob.call('DELETE', `${extensions(entity)}/${id}`)).status).toBe(409);
  });

  it('answers 400, never 500, for an extension id or reference with a NUL character', async () => {
    const entity = freshEntity('nul');
    const published = await alice.call('POST', extensions(entity), {
      body: { id: 'x\u0000', version: '1.0.0', availability: 'Public' },
    });
    expect(published.status).toBe(400);
    expect(published.body).toMatchObject({ code: 'request.invalid', errors: [{ path: 'id' }] });
    for (const method of ['GET', 'DELETE']) {
      const response = await alice.call(method, `${extensions(entity)}/x%00`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'request.invalid' });
    }
    const updated = await alice.call('PUT', `${extensions(entity)}/x%00`, {
      body: { id: 'x\u0000', version: '1.0.0', availability: 'Public' },
    });
    expect(updated.status).toBe(400);
    const list = await alice.call<ExtensionSummaryOutput[]>(
      'GET',
      `${extensions(entity)}?include_deleted=true&include_private=true`,
    );
    expect(list.body).toEqual([]);
  });

  it('publishes only extensions its path can name again: 200 UTF-16 units at most, never . or ..', async () => {
    const entity = freshEntity('addressable');
    const longest = `x-${'🍕'.repeat(99)}`;
    const published = await alice.call('POST', extensions(entity), {
      body: { id: longest, version: '1.0.0', availability: 'Public' },
    });
    expect(published.status).toBe(200);
    const read = await alice.call<{ id: string }>(
      'GET',
      `${extensions(entity)}/${encodeURIComponent(longest)}`,
    );
    expect([read.status, read.body.id]).toEqual([200, longest]);
    for (const id of [`x-${'🍕'.repeat(100)}`, '.', '..']) {
      const refused = await alice.call('POST', extensions(entity), {
        body: { id, version: '1.0.0', availability: 'Public' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'request.invalid', errors: [{ path: 'id' }] });
    }
  });

  it('answers an id in the path longer than any id with a short 400, not the path echoed back', async () => {
    const entity = freshEntity('long');
    for (const length of [201, 5000]) {
      const response = await alice.call<{ code: string; detail: string }>(
        'GET',
        `${extensions(entity)}/${'a'.repeat(length)}`,
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'request.uri_too_long',
        detail: 'A path segment is longer than 200 characters, the most this service accepts.',
      });
    }
  });

  it('needs extensions:read to list and extensions:write to publish', async () => {
    const reader = await integrator(platform, 'tenant-extensions-a', ['extensions:read']);
    const entity = freshEntity('perm');
    expect(
      (
        await reader.call('POST', extensions(entity), {
          body: { id: freshId('p'), version: '1', availability: 'Public' },
        })
      ).status,
    ).toBe(403);
    expect((await reader.call('GET', extensions(entity))).status).toBe(200);
  });
});
