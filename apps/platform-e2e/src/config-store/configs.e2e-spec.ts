import type { ConfigOutput, ConfigValuesOutput } from '@comanda/service-config-store';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { freshEntity, integrator, type Integrator } from './config-store-api';

describe('config store: configs through the gateway', () => {
  let platform: TestPlatform;
  let alice: Integrator;
  let bob: Integrator;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_configs');
    alice = await integrator(platform, 'tenant-configs-a');
    bob = await integrator(platform, 'tenant-configs-b');
  }, 120_000);
  afterAll(() => platform?.close());

  const configs = (entity: string) => `/entities/${entity}/configs`;

  it('POST /configs creates version 1 and answers the config output with an ETag; a second POST is 409', async () => {
    const entity = freshEntity('create');
    const created = await alice.call<ConfigOutput>('POST', configs(entity), {
      body: { id: 'pos', extensionReferences: [], values: { tax: 7 } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: 'pos',
      entity,
      version: 1,
      publisher: alice.clientId,
      values: { tax: 7 },
      extensionReferences: [],
      deleted: false,
    });
    expect(created.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.body.lastUpdateDate).toMatch(/Z$/);
    expect(created.headers.get('etag')).toBe('"1"');

    const again = await alice.call('POST', configs(entity), { body: { id: 'pos' } });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, code: 'config.already_exists' });
  });

  it('GET /configs answers the current config of the caller tenant only', async () => {
    const entity = freshEntity('current');
    await alice.call('POST', configs(entity), { body: { id: 'mine', values: { a: 1 } } });
    await alice.call('PUT', configs(entity), { body: { id: 'mine', values: { a: 2 } } });
    const current = await alice.call<ConfigOutput>('GET', configs(entity));
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ version: 2, values: { a: 2 } });
    expect(current.headers.get('etag')).toBe('"2"');
    const other = await bob.call('GET', configs(entity));
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'config.not_found' });
  });

  it('GET /configs hides a removed config by default (include_deleted=false) and shows it with include_deleted=true', async () => {
    const entity = freshEntity('deleted');
    await alice.call('POST', configs(entity), { body: { id: 'temp' } });
    const removed = await alice.call<ConfigOutput>('DELETE', configs(entity));
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: 'temp', deleted: true });
    expect((await alice.call('GET', configs(entity))).status).toBe(404);
    expect((await alice.call('GET', `${configs(entity)}?include_deleted=false`)).status).toBe(404);
    const shown = await alice.call<ConfigOutput>('GET', `${configs(entity)}?include_deleted=true`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: 'temp', deleted: true });
  });

  it('PUT /configs saves the next version, one more per save, and every old version stays readable', async () => {
    const entity = freshEntity('versions');
    await alice.call('POST', configs(entity), { body: { id: 'menu', values: { n: 1 } } });
    for (const n of [2, 3, 4]) {
      const saved = await alice.call<ConfigOutput>('PUT', configs(entity), {
        body: { id: 'menu', values: { n } },
      });
      expect(saved.status).toBe(200);
      expect(saved.body.version).toBe(n);
      expect(saved.headers.get('etag')).toBe(`"${n}"`);
    }
    for (const n of [1, 2, 3, 4]) {
      const old = await alice.call<ConfigOutput>('GET', `${configs(entity)}/versions/${n}`);
      expect(old.status).toBe(200);
      expect(old.body).toMatchObject({ version: n, values: { n } });
    }
  });

  it('PUT /configs answers 404 when the tenant has no config under the entity', async () => {
    const response = await alice.call('PUT', configs(freshEntity('none')), { body: { id: 'x' } });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'config.not_found' });
  });

  it('PUT /configs with a stale If-Match loses with 409 config.version_conflict; the fresh one wins', async () => {
    const entity = freshEntity('etag');
    const created = await alice.call('POST', configs(entity), { body: { id: 'c' } });
    const etag = created.headers.get('etag') as string;
    const first = await alice.call('PUT', configs(entity), {
      body: { id: 'c', values: { w: 'first' } },
      headers: { 'if-match': etag },
    });
    expect(first.status).toBe(200);
    const stale = await alice.call('PUT', configs(entity), {
      body: { id: 'c', values: { w: 'second' } },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'config.version_conflict' });
    const current = await alice.call<ConfigOutput>('GET', configs(entity));
    expect(current.body).toMatchObject({ version: 2, values: { w: 'first' } });
  });

  it('POST /configs/dry-run answers the output a save would and saves nothing', async () => {
    const entity = freshEntity('dry-post');
    const preview = await alice.call<ConfigOutput>('POST', `${configs(entity)}/dry-run`, {
      body: { id: 'd', values: { x: true } },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      id: 'd',
      version: 1,
      values: { x: true },
      publisher: alice.clientId,
      deleted: false,
    });
    expect((await alice.call('GET', configs(entity))).status).toBe(404);
    expect(
      (await alice.call('GET', `${configs(entity)}/versions?take=10&include_deleted=true`)).body,
    ).toEqual([]);
    // The real save afterwards is still version 1: the dry run took no number.
    expect(
      (await alice.call<ConfigOutput>('POST', configs(entity), { body: { id: 'd' } })).body.version,
    ).toBe(1);
  });

  it('PUT /configs/dry-run answers the next version without storing it or touching the current one', async () => {
    const entity = freshEntity('dry-put');
    await alice.call('POST', configs(entity), { body: { id: 'd', values: { v: 1 } } });
    const before = await alice.call<ConfigOutput>('GET', configs(entity));
    const preview = await alice.call<ConfigOutput>('PUT', `${configs(entity)}/dry-run`, {
      body: { id: 'd', values: { v: 2 } },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ version: 2, values: { v: 2 } });
    const after = await alice.call<ConfigOutput>('GET', configs(entity));
    expect(after.body).toEqual(before.body);
    const versions = await alice.call<ConfigOutput[]>('GET', `${configs(entity)}/versions?take=10`);
    expect(versions.body.map((version) => version.version)).toEqual([1]);
  });

  it('a reference to a missing extension is 422 naming it, in save and in dry run', async () => {
    const entity = freshEntity('refs');
    const body = {
      id: 'r',
      extensionReferences: [
        { publisher: alice.clientId, dataId: 'no-such-extension', version: '1.0.0' },
      ],
    };
    for (const [method, path] of [
      ['POST', configs(entity)],
      ['POST', `${configs(entity)}/dry-run`],
    ] as const) {
      const response = await alice.call(method, path, { body });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        code: 'extension.reference_invalid',
        errors: [expect.objectContaining({ path: 'extensionReferences[0]' })],
      });
    }
    await alice.call('POST', configs(entity), { body: { id: 'r' } });
    for (const path of [configs(entity), `${configs(entity)}/dry-run`]) {
      const response = await alice.call('PUT', path, { body });
      expect(response.status).toBe(422);
    }
  });

  it('GET /configs/versions answers one version by default (take=1), newest first, without removed ones or data types', async () => {
    const entity = freshEntity('take');
    await alice.call('POST', configs(entity), { body: { id: 't', values: { s: 'a' } } });
    await alice.call('PUT', configs(entity), {
      body: { id: 't', values: { s: 'b', n: 1, o: {}, l: [], z: null, f: false } },
    });
    const byDefault = await alice.call<ConfigOutput[]>('GET', `${configs(entity)}/versions`);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.map((version) => version.version)).toEqual([2]);
    expect(byDefault.body[0]).not.toHaveProperty('dataTypes');
    const three = await alice.call<ConfigOutput[]>('GET', `${configs(entity)}/versions?take=3`);
    expect(three.body.map((version) => version.version)).toEqual([2, 1]);
  });

  it('GET /configs/versions with include_datatypes=true adds the JSON type of each value', async () => {
    const entity = freshEntity('types');
    await alice.call('POST', configs(entity), {
      body: { id: 't', values: { s: 'b', n: 1, o: {}, l: [], z: null, f: false } },
    });
    const typed = await alice.call<ConfigOutput[]>(
      'GET',
      `${configs(entity)}/versions?include_datatypes=true`,
    );
    expect(typed.body[0].dataTypes).toEqual({
      s: 'string',
      n: 'number',
      o: 'object',
      l: 'array',
      z: 'null',
      f: 'boolean',
    });
  });

  it('GET /configs/versions shows removed versions only with include_deleted=true', async () => {
    const entity = freshEntity('versions-deleted');
    await alice.call('POST', configs(entity), { body: { id: 'v' } });
    await alice.call('DELETE', configs(entity));
    expect((await alice.call('GET', `${configs(entity)}/versions`)).body).toEqual([]);
    const shown = await alice.call<ConfigOutput[]>(
      'GET',
      `${configs(entity)}/versions?include_deleted=true`,
    );
    expect(shown.body).toEqual([expect.objectContaining({ version: 1, deleted: true })]);
  });

  it('GET /configs/versions/{version} answers 404 for a version that does not exist and 400 for one that is not an int32', async () => {
    const entity = freshEntity('version-param');
    await alice.call('POST', configs(entity), { body: { id: 'v' } });
    expect((await alice.call('GET', `${configs(entity)}/versions/2`)).body).toMatchObject({
      status: 404,
      code: 'config.version_not_found',
    });
    for (const bad of ['abc', '1.5', '2147483648']) {
      const response = await alice.call('GET', `${configs(entity)}/versions/${bad}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'request.invalid' });
    }
    for (const take of ['0', '-1', '101', '2147483647', '2147483648', 'many']) {
      expect((await alice.call('GET', `${configs(entity)}/versions?take=${take}`)).status).toBe(
        400,
      );
    }
  });

  it('answers 400 for an {entity} that is not a slug, a query boolean other than true/false, and an invalid body', async () => {
    expect((await alice.call('GET', '/entities/Not_A_Slug/configs')).status).toBe(400);
    expect((await alice.call('GET', `/entities/${'a'.repeat(64)}/configs`)).status).toBe(400);
    const yes = await alice.call('GET', `${configs(freshEntity('bool'))}?include_deleted=yes`);
    expect(yes.status).toBe(400);
    expect(yes.body).toMatchObject({
      code: 'request.invalid',
      errors: [expect.objectContaining({ path: 'include_deleted' })],
    });
    const invalid = await alice.call('POST', configs(freshEntity('body')), {
      body: { id: 5, values: [1], unknown: true },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ code: 'request.invalid' });
  });

  it('answers a wrong media type, an over-long id and an oversized body with 400, among the statuses the spec lists', async () => {
    const entity = freshEntity('statuses');
    const text = await alice.call('POST', configs(entity), {
      rawBody: '{"id":"pos"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect([text.status, text.body]).toEqual([
      400,
      expect.objectContaining({ status: 400, code: 'request.unsupported_media_type' }),
    ]);
    const long = await alice.call('GET', `/entities/${entity}/extensions/${'a'.repeat(300)}`);
    expect([long.status, long.body]).toEqual([
      400,
      expect.objectContaining({ status: 400, code: 'request.uri_too_long' }),
    ]);
    const big = await alice.call('POST', configs(entity), {
      rawBody: JSON.stringify({ id: 'pos', values: { x: 'y'.repeat(2 * 1024 * 1024) } }),
      headers: { 'content-type': 'application/json' },
    });
    expect([big.status, big.body]).toEqual([
      400,
      expect.objectContaining({ status: 400, code: 'request.too_large' }),
    ]);
  });

  it('GET /values answers the current values, and with complete=true resolves the referenced extensions inline', async () => {
    const entity = freshEntity('values');
    const extensionId = `values-ext-${Date.now()}`;
    const published = await alice.call('POST', `/entities/${entity}/extensions`, {
      body: { id: extensionId, version: '1.0.0', availability: 'Public' },
    });
    expect(published.status).toBe(200);
    const reference = { publisher: alice.clientId, dataId: extensionId, version: '1.0.0' };
    await alice.call('POST', configs(entity), {
      body: { id: 'v', values: { color: 'red' }, extensionReferences: [reference] },
    });
    const plain = await alice.call<ConfigValuesOutput>('GET', `/entities/${entity}/values`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ id: 'v', entity, version: 1, values: { color: 'red' } });
    const complete = await alice.call<ConfigValuesOutput>(
      'GET',
      `/entities/${entity}/values?complete=true`,
    );
    expect(complete.body.extensions).toEqual([
      {
        ...reference,
        extension: expect.objectContaining({
          id: extensionId,
          version: '1.0.0',
          availability: 'Public',
        }),
      },
    ]);
  });

  it('refuses with 400, saving nothing, text PostgreSQL cannot store (NUL, a lone surrogate) and values nested too deep', async () => {
    const entity = freshEntity('odd-text');
    let deep: unknown = 'leaf';
    for (let level = 0; level < 1500; level += 1) deep = [deep];
    for (const [body, path] of [
      [{ id: 'nul', values: { note: 'a\u0000b' } }, 'values.note'],
      [{ id: 'nul', values: { 'k\u0000': 1 } }, 'values'],
      [{ id: 'a\u0000b' }, 'id'],
      [{ id: 'lone', values: { note: 'x\ud800y' } }, 'values.note'],
      [
        { id: 'ref', extensionReferences: [{ publisher: 'p', dataId: 'd\u0000', version: '1' }] },
        'extensionReferences[0].dataId',
      ],
      [{ id: 'deep', values: { deep } }, 'values.deep'],
    ] as const) {
      for (const path_ of [configs(entity), `${configs(entity)}/dry-run`]) {
        const refused = await alice.call('POST', path_, { body });
        expect(refused.status).toBe(400);
        expect(refused.headers.get('content-type')).toContain('application/problem+json');
        expect(refused.body).toMatchObject({
          code: 'request.invalid',
          errors: [expect.objectContaining({ path: expect.stringContaining(path) })],
        });
      }
    }
    expect((await alice.call('GET', `${configs(entity)}?include_deleted=true`)).status).toBe(404);
    const unicode = await alice.call<ConfigOutput>('POST', configs(entity), {
      body: { id: 'ünï', values: { pizza: '🍕', zwj: '👩‍🍳' } },
    });
    expect(unicode.status).toBe(200);
    expect(unicode.body.values).toEqual({ pizza: '🍕', zwj: '👩‍🍳' });
  });

  it('needs configs:read to read and configs:write to save', async () => {
    const reader = await integrator(platform, 'tenant-configs-a', ['configs:read']);
    const entity = freshEntity('perm');
    const denied = await reader.call('POST', configs(entity), { body: { id: 'p' } });
    expect(denied.status).toBe(403);
    expect((await reader.call('GET', configs(entity))).status).toBe(404);
    const unauthenticated = await fetch(`${platform.baseUrl}${configs(entity)}`, {
      headers: { 'x-api-version': '0' },
    });
    expect(unauthenticated.status).toBe(401);
  });
});
