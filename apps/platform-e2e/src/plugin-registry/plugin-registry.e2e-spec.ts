import { createHash } from 'node:crypto';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  freshPlugin,
  manifestFor,
  pluginCode,
  pluginTeam,
  type PluginTeam,
} from './plugin-registry-api';

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('plugin registry through the gateway', () => {
  let platform: TestPlatform;
  let alice: PluginTeam;
  let bob: PluginTeam;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_plugins');
    alice = await pluginTeam(platform, 'tenant-plugins-a');
    bob = await pluginTeam(platform, 'tenant-plugins-b');
  }, 120_000);
  afterAll(() => platform?.close());

  it('the three-step recipe moves the config to the new version and the old version stays loadable', async () => {
    const name = freshPlugin('banner');
    const v1 = pluginCode('v1');
    const parameters = [{ name: 'title', type: 'string', required: true, description: 'headline' }];
    expect((await alice.uploadCode(name, '1.0.0', v1)).status).toBe(201);
    expect((await alice.uploadManifest(name, manifestFor('1.0.0', parameters))).status).toBe(201);
    const created = await alice.call('POST', '/frontend/plugins/configs', {
      body: { name, version: '1.0.0', config: { title: 'Welcome' }, placement: 'header' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    // 1. code of the new version, 2. its manifest, 3. the config switched to it.
    const v2 = pluginCode('v2');
    const code = await alice.uploadCode(name, '1.1.0', v2);
    expect(code.status).toBe(201);
    expect(code.json).toMatchObject({
      name,
      version: '1.1.0',
      sha256: sha256(v2),
      overwritten: false,
    });
    const manifest = await alice.uploadManifest(
      name,
      manifestFor('1.1.0', [
        ...parameters,
        { name: 'limit', type: 'integer', required: false, default: 3 },
      ]),
    );
    expect(manifest.status).toBe(201);
    const switched = await alice.call('PUT', `/frontend/plugins/${id}/config`, {
      body: { ...created.json, version: '1.1.0', config: { title: 'Welcome', limit: 5 } },
    });
    expect(switched.status).toBe(200);
    expect(switched.json).toMatchObject({
      id,
      name,
      version: '1.1.0',
      config: { title: 'Welcome', limit: 5 },
      placement: 'header',
    });

    const listed = await alice.call<{ items: Array<Record<string, unknown>> }>(
      'GET',
      `/frontend/plugins/configs?name=${name}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.json.items).toEqual([
      expect.objectContaining({ id, version: '1.1.0', placement: 'header' }),
    ]);

    const old = await alice.code(name, '1.0.0');
    expect(old.status).toBe(200);
    expect(old.bytes.toString('utf8')).toBe(v1);
    expect((await alice.code(name, '1.1.0')).bytes.toString('utf8')).toBe(v2);
    expect(
      (await alice.call('GET', `/frontend/plugins/${name}/versions/1.0.0/manifest`)).json,
    ).toEqual(manifestFor('1.0.0', parameters));
    const versions = await alice.call<{ items: Array<{ version: string; hasManifest: boolean }> }>(
      'GET',
      `/frontend/plugins/${name}/versions`,
    );
    expect(versions.json.items.map((v) => [v.version, v.hasManifest])).toEqual([
      ['1.1.0', true],
      ['1.0.0', true],
    ]);
  });

  it('overwriting the same version changes the ETag and the served bytes; an unchanged ETag revalidates with 304', async () => {
    const name = freshPlugin('overwrite');
    const first = pluginCode('first');
    expect((await alice.uploadCode(name, '2.0.0', first)).status).toBe(201);
    const served = await alice.code(name, '2.0.0');
    const etag = served.headers.get('etag');
    expect(etag).toBe(`"sha256-${sha256(first)}"`);

    const unchanged = await alice.code(name, '2.0.0', { 'if-none-match': etag as string });
    expect(unchanged.status).toBe(304);
    expect(unchanged.bytes.length).toBe(0);

    const second = pluginCode('second');
    const overwrite = await alice.uploadCode(name, '2.0.0', second);
    expect(overwrite.status).toBe(200);
    expect(overwrite.json).toMatchObject({ overwritten: true });

    const after = await alice.code(name, '2.0.0', { 'if-none-match': etag as string });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toBe(`"sha256-${sha256(second)}"`);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.bytes.toString('utf8')).toBe(second);
  });

  it('serves code with </script>, unicode and CRLF byte for byte as text/javascript with nosniff', async () => {
    const name = freshPlugin('bytes');
    const source = Buffer.from(
      'export default async (context) => {\r\n  context.html("<script>alert(1)</script>");\r\n  return "ünï — 🍕 \\u2028";\r\n};\r\n',
      'utf8',
    );
    expect((await alice.uploadCode(name, '1.0.0', source)).status).toBe(201);
    const served = await alice.code(name, '1.0.0');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.bytes.equals(source)).toBe(true);
  });

  it('refuses code that is not a module or has no default function export with 422 and the parser position', async () => {
    const name = freshPlugin('invalid');
    const syntax = await alice.uploadCode(
      name,
      '1.0.0',
      'export default function () {\n  return 1 +;\n}\n',
    );
    expect(syntax.status).toBe(422);
    expect(syntax.headers.get('content-type')).toContain('application/problem+json');
    expect(syntax.json).toMatchObject({
      code: 'plugin.invalid_code',
      detail: expect.stringContaining('line 2, column 13'),
      errors: [{ path: 'code:2:13', message: 'Unexpected token' }],
    });

    const commonJs = await alice.uploadCode(
      name,
      '1.0.0',
      'module.exports = async function (context) {};',
    );
    expect(commonJs.status).toBe(422);
    expect(commonJs.json).toMatchObject({
      code: 'plugin.invalid_code',
      detail: expect.stringContaining('no default export'),
    });

    // Nested deeper than the parser follows: not a syntax error of the author's, but refused.
    const deep = await alice.uploadCode(
      name,
      '1.0.0',
      `export default () => ${'['.repeat(100_000)}${']'.repeat(100_000)};`,
    );
    expect(deep.status).toBe(422);
    expect(deep.json).toMatchObject({
      code: 'plugin.code_too_complex',
      detail: expect.stringContaining('nests deeper than the parser can follow'),
    });

    const aClass = await alice.uploadCode(name, '1.0.0', 'export default class Plugin {}');
    expect(aClass.status).toBe(422);
    expect(aClass.json).toMatchObject({
      code: 'plugin.invalid_code',
      detail: expect.stringContaining('class'),
    });

    expect((await alice.call('GET', `/frontend/plugins/${name}/versions`)).status).toBe(404);
  });

  it('refuses code over the 1 MiB limit with 413 and a JSON upload with 415', async () => {
    const name = freshPlugin('limits');
    const big = `export default () => 1;\n//${'x'.repeat(1024 * 1024)}\n`;
    const tooLarge = await alice.uploadCode(name, '1.0.0', big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json).toMatchObject({ status: 413, code: 'request.too_large' });

    const json = await alice.call('POST', `/frontend/plugins?name=${name}&version=1.0.0`, {
      body: { code: 'export default () => 1;' },
    });
    expect(json.status).toBe(415);
    expect(json.json).toMatchObject({ status: 415, code: 'request.unsupported_media_type' });
    expect((await alice.call('GET', `/frontend/plugins/${name}/versions`)).status).toBe(404);
  });

  it('the registry itself refuses a JSON code upload (415, before parsing) and a call without a token, gateway or not', async () => {
    const registry = platform.services.get('plugin-registry');
    expect(registry).toBeDefined();
    const url = `${registry?.url}/frontend/plugins?name=${freshPlugin('direct')}&version=1.0.0`;
    const headers = { 'x-api-version': '0', 'content-type': 'application/json' };
    const token = await alice.token();
    // Not even valid JSON: the media type is refused before any parser runs.
    const json = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: 'export default () => 1;',
    });
    expect(json.status).toBe(415);
    expect(await json.json()).toMatchObject({ code: 'request.unsupported_media_type' });

    const anonymous = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-version': '0', 'content-type': 'text/plain' },
      body: 'export default () => 1;',
    });
    expect(anonymous.status).toBe(401);
  });

  it('describes its routes in the OpenAPI document the gateway merges into /docs', async () => {
    const registry = platform.services.get('plugin-registry');
    const response = await fetch(`${registry?.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/frontend/plugins',
        '/frontend/plugins/manifest',
        '/frontend/plugins/configs',
        '/frontend/plugins/{id}/config',
        '/frontend/plugins/{name}/versions',
        '/frontend/plugins/{name}/versions/{version}/code',
        '/frontend/plugins/{name}/versions/{version}/manifest',
      ]),
    );
  });

  it('refuses a name that is not a slug and a version that is not semver with 400', async () => {
    const badName = await alice.call(
      'POST',
      '/frontend/plugins?name=Not%20A%20Slug&version=1.0.0',
      {
        body: pluginCode('x'),
      },
    );
    expect(badName.status).toBe(400);
    expect(badName.json).toMatchObject({
      code: 'request.invalid',
      errors: [expect.objectContaining({ path: 'name' })],
    });
    const badVersion = await alice.uploadCode(freshPlugin('semver'), 'v1', pluginCode('x'));
    expect(badVersion.status).toBe(400);
    expect(badVersion.json).toMatchObject({
      errors: [expect.objectContaining({ path: 'version' })],
    });
  });

  it('refuses a manifest for a version without code with 422', async () => {
    const name = freshPlugin('nocode');
    const response = await alice.uploadManifest(name, manifestFor('3.0.0'));
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ code: 'plugin.code_missing' });
  });

  it('refuses to switch a config to a version without a manifest, or with a config the manifest does not accept', async () => {
    const name = freshPlugin('switch');
    await alice.uploadCode(name, '1.0.0', pluginCode('a'));
    await alice.uploadManifest(
      name,
      manifestFor('1.0.0', [{ name: 'title', type: 'string', required: true }]),
    );
    const created = await alice.call('POST', '/frontend/plugins/configs', {
      body: { name, version: '1.0.0', config: { title: 'x' } },
    });
    const id = created.json.id as string;
    await alice.uploadCode(name, '2.0.0', pluginCode('b'));

    const noManifest = await alice.call('PUT', `/frontend/plugins/${id}/config`, {
      body: { name, version: '2.0.0', config: { title: 'x' } },
    });
    expect(noManifest.status).toBe(422);
    expect(noManifest.json).toMatchObject({ code: 'plugin.version_not_ready' });

    const wrongType = await alice.call('PUT', `/frontend/plugins/${id}/config`, {
      body: { name, version: '1.0.0', config: { title: 42 } },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.json).toMatchObject({
      code: 'plugin.config_invalid',
      errors: [{ path: 'config.title', message: 'title must be of type string, got number' }],
    });
    const listed = await alice.call<{ items: Array<{ version: string }> }>(
      'GET',
      `/frontend/plugins/configs?name=${name}`,
    );
    expect(listed.json.items.map((item) => item.version)).toEqual(['1.0.0']);
  });

  it('refuses manifests and configs with text PostgreSQL cannot store, or nested too deep, with 400 and keeps the earlier state', async () => {
    const name = freshPlugin('odd-text');
    await alice.uploadCode(name, '1.0.0', pluginCode('a'));
    const good = manifestFor('1.0.0', [{ name: 'title', type: 'string', required: false }]);
    expect((await alice.uploadManifest(name, good)).status).toBe(201);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 1500; level += 1) deep = [deep];
    for (const [manifest, path] of [
      [{ ...good, description: 'a\u0000b' }, 'description'],
      [
        manifestFor('1.0.0', [{ name: 't\u0000', type: 'string', required: false }]),
        'parameters[0].name',
      ],
      [
        manifestFor('1.0.0', [{ name: 't', type: 'string', required: false, default: 'x\ud800' }]),
        'parameters[0].default',
      ],
      [
        manifestFor('1.0.0', [{ name: 't', type: 'array', required: false, default: deep }]),
        'parameters[0].default',
      ],
    ] as const) {
      const refused = await alice.uploadManifest(name, manifest);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        code: 'request.invalid',
        errors: [expect.objectContaining({ path: expect.stringContaining(path) })],
      });
    }
    const served = await alice.call('GET', `/frontend/plugins/${name}/versions/1.0.0/manifest`);
    expect(served.json).toEqual(good);

    const created = await alice.call('POST', '/frontend/plugins/configs', {
      body: { name, version: '1.0.0', config: { title: 'ok' } },
    });
    expect(created.status).toBe(201);
    for (const body of [
      { name, version: '1.0.0', config: { title: 'a\u0000' } },
      { name, version: '1.0.0', config: { title: 'ok' }, 'note\u0000': 1 },
      { name, version: '1.0.0', config: { title: 'ok', extra: deep } },
    ]) {
      expect((await alice.call('POST', '/frontend/plugins/configs', { body })).status).toBe(400);
      const put = await alice.call('PUT', `/frontend/plugins/${created.json.id as string}/config`, {
        body,
      });
      expect(put.status).toBe(400);
      expect(put.json).toMatchObject({ code: 'request.invalid' });
    }
    const listed = await alice.call<{ items: unknown[] }>(
      'GET',
      `/frontend/plugins/configs?name=${name}`,
    );
    expect(listed.json.items).toEqual([expect.objectContaining({ config: { title: 'ok' } })]);
  });

  it('lists configs a page at a time and bounds what one config may hold', async () => {
    const name = freshPlugin('paged');
    await alice.uploadCode(name, '1.0.0', pluginCode('paged'));
    await alice.uploadManifest(name, manifestFor('1.0.0'));
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await alice.call('POST', '/frontend/plugins/configs', {
        body: { name, version: '1.0.0', config: {}, index },
      });
      ids.push(created.json.id as string);
    }
    const first = await alice.call<{ items: Array<{ id: string }>; nextCursor?: string }>(
      'GET',
      `/frontend/plugins/configs?name=${name}&limit=2`,
    );
    expect(first.status).toBe(200);
    expect(first.json.items.map((item) => item.id)).toEqual(ids.slice(0, 2));
    const second = await alice.call<{ items: Array<{ id: string }>; nextCursor?: string }>(
      'GET',
      `/frontend/plugins/configs?name=${name}&limit=2&cursor=${first.json.nextCursor as string}`,
    );
    expect(second.json).toEqual({ items: [expect.objectContaining({ id: ids[2], index: 2 })] });
    for (const query of ['limit=0', 'limit=101', 'limit=2.5', 'cursor=bm90LWEtY3Vyc29y']) {
      const refused = await alice.call('GET', `/frontend/plugins/configs?name=${name}&${query}`);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'request.invalid' });
    }

    const big = await alice.call('PUT', `/frontend/plugins/${ids[0]}/config`, {
      body: { name, version: '1.0.0', config: {}, note: 'x'.repeat(256 * 1024) },
    });
    expect(big.status).toBe(400);
    expect(big.json).toMatchObject({ code: 'request.invalid', errors: [{ path: 'config' }] });
  });

  it("tenant B can neither see nor load nor change tenant A's plugin", async () => {
    const name = freshPlugin('private');
    await alice.uploadCode(name, '1.0.0', pluginCode('secret'));
    await alice.uploadManifest(name, manifestFor('1.0.0'));
    const created = await alice.call('POST', '/frontend/plugins/configs', {
      body: { name, version: '1.0.0', config: {} },
    });
    const id = created.json.id as string;

    expect((await bob.code(name, '1.0.0')).status).toBe(404);
    expect((await bob.call('GET', `/frontend/plugins/${name}/versions`)).status).toBe(404);
    expect(
      (await bob.call('GET', `/frontend/plugins/${name}/versions/1.0.0/manifest`)).status,
    ).toBe(404);
    expect((await bob.call('GET', `/frontend/plugins/configs?name=${name}`)).json).toEqual({
      items: [],
    });
    const put = await bob.call('PUT', `/frontend/plugins/${id}/config`, {
      body: { name, version: '1.0.0', config: {} },
    });
    expect(put.status).toBe(404);
    expect(put.json).toMatchObject({ code: 'plugin.config_not_found' });
    // The same name in tenant B is B's own plugin, independent of A's.
    expect((await bob.uploadCode(name, '1.0.0', pluginCode('bob'))).status).toBe(201);
    expect((await alice.code(name, '1.0.0')).bytes.toString('utf8')).toBe(pluginCode('secret'));
  });

  it('needs plugins:write to upload and plugins:read to load', async () => {
    const reader = await pluginTeam(platform, 'tenant-plugins-a', ['plugins:read']);
    const name = freshPlugin('perm');
    const refused = await reader.uploadCode(name, '1.0.0', pluginCode('x'));
    expect(refused.status).toBe(403);
    await alice.uploadCode(name, '1.0.0', pluginCode('x'));
    expect((await reader.code(name, '1.0.0')).status).toBe(200);

    const writerOnly = await pluginTeam(platform, 'tenant-plugins-a', ['plugins:write']);
    expect((await writerOnly.code(name, '1.0.0')).status).toBe(403);
  });
});
