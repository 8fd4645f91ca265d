import { createHash } from 'node:crypto';
import { MESSAGING_MIGRATIONS, OutboxWriter } from '@comanda/messaging';
import { openDatabase, transactional, UnitOfWork, type Transactional } from '@comanda/persistence';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { PluginCodeChecker } from './code/plugin-code.checker';
import { PluginCodeService, type StoredCode } from './code/plugin-code.service';
import { PluginConfigService } from './configs/plugin-config.service';
import type { PluginManifest } from './manifest/manifest-parameter';
import { PluginManifestService } from './manifest/plugin-manifest.service';
import { CreatePluginTables1763820000000 } from './persistence/create-plugin-tables.migration';
import { PluginConfigEntity } from './persistence/plugin-config.entity';
import { PluginVersionEntity } from './persistence/plugin-version.entity';
import { PluginRegistryConfig } from './plugin-registry.config';
import type { RegistryActor } from './registry-actor';

const tenantA: RegistryActor = { tenantId: 'tenant-a', clientId: 'ci-a' };
const tenantB: RegistryActor = { tenantId: 'tenant-b', clientId: 'ci-b' };
const CODE =
  'export default async function banner(context) {\n  return context.render("</script>");\n}\n';

function manifest(version: string, parameters: PluginManifest['parameters'] = []): PluginManifest {
  return { version, description: 'Shows a banner', parameters };
}

describe('plugin registry services (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let checker: PluginCodeChecker;
  /** The code use cases as the controller drives them: checked, then stored in a transaction. */
  let code: Omit<PluginCodeService, 'upload' | 'checked'> & {
    upload(
      actor: RegistryActor,
      name: string,
      version: string,
      body: string | Buffer,
    ): Promise<StoredCode>;
  };
  let manifests: Transactional<PluginManifestService, 'upload'>;
  let configs: Transactional<PluginConfigService, 'create' | 'update'>;

  beforeAll(async () => {
    db = await createTestDatabase('plugin_registry');
    dataSource = await openDatabase({
      url: db.url,
      schema: 'plugins',
      entities: [PluginVersionEntity, PluginConfigEntity],
      migrations: [...MESSAGING_MIGRATIONS, CreatePluginTables1763820000000],
    });
    const outbox = new OutboxWriter({ service: 'plugin-registry', schema: 'plugins' });
    const config = Object.assign(new PluginRegistryConfig(), { PLUGIN_CODE_MAX_BYTES: 4096 });
    const unitOfWork = new UnitOfWork(dataSource);
    checker = new PluginCodeChecker();
    const codeService = new PluginCodeService(dataSource, outbox, config, checker);
    const codeUseCases = transactional(codeService, unitOfWork, ['upload']);
    // As the controller does: the code is checked, then stored in a transaction.
    code = Object.assign(Object.create(codeUseCases) as typeof codeUseCases, {
      upload: async (actor: RegistryActor, name: string, version: string, body: string | Buffer) =>
        codeUseCases.upload(actor, name, version, await codeService.checked(body)),
    });
    manifests = transactional(new PluginManifestService(dataSource, outbox), unitOfWork, [
      'upload',
    ]);
    configs = transactional(new PluginConfigService(dataSource, outbox), unitOfWork, [
      'create',
      'update',
    ]);
  });
  afterAll(async () => {
    await checker?.onModuleDestroy();
    await dataSource?.destroy();
    await db?.drop();
  });

  async function outboxEvents(
    subject: string,
  ): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const rows: Array<{ event: { type: string; data: Record<string, unknown> } }> =
      await dataSource.query(
        `SELECT event FROM "plugins"."outbox" WHERE subject = $1 ORDER BY position`,
        [subject],
      );
    return rows.map((row) => ({ type: row.event.type, data: row.event.data }));
  }

  it('stores code byte for byte with its SHA-256, announces it in the outbox, and overwrites the same version', async () => {
    const first = await code.upload(tenantA, 'banner', '1.0.0', CODE);
    const sha = createHash('sha256').update(CODE, 'utf8').digest('hex');
    expect(first).toMatchObject({ sha256: sha, etag: `"sha256-${sha}"`, overwritten: false });
    expect((await code.code('tenant-a', 'banner', '1.0.0')).bytes.toString('utf8')).toBe(CODE);

    const changed = CODE.replace('banner', 'banner2');
    const second = await code.upload(tenantA, 'banner', '1.0.0', changed);
    expect(second.overwritten).toBe(true);
    expect(second.etag).not.toBe(first.etag);
    expect((await code.code('tenant-a', 'banner', '1.0.0')).bytes.toString('utf8')).toBe(changed);

    expect(await outboxEvents('banner@1.0.0')).toEqual([
      {
        type: 'plugin.code_uploaded',
        data: { name: 'banner', version: '1.0.0', sha256: sha, overwritten: false },
      },
      {
        type: 'plugin.code_uploaded',
        data: { name: 'banner', version: '1.0.0', sha256: second.sha256, overwritten: true },
      },
    ]);
  });

  it('keeps raw bytes of a Buffer body, CRLF and unicode included', async () => {
    const bytes = Buffer.from('export default () => "ünï 🍕";\r\n', 'utf8');
    await code.upload(tenantA, 'crlf', '1.0.0', bytes);
    expect((await code.code('tenant-a', 'crlf', '1.0.0')).bytes.equals(bytes)).toBe(true);
  });

  it('refuses code above the configured limit, code that is not a module and code without a default function, storing nothing', async () => {
    await expect(
      code.upload(tenantA, 'big', '1.0.0', `export default () => 1;//${'x'.repeat(5000)}`),
    ).rejects.toMatchObject({
      status: 413,
      code: 'request.too_large',
    });
    await expect(
      code.upload(tenantA, 'bad', '1.0.0', 'export default function (\n'),
    ).rejects.toMatchObject({
      status: 422,
      code: 'plugin.invalid_code',
    });
    await expect(
      code.upload(tenantA, 'bad', '1.0.0', 'module.exports = () => 1;'),
    ).rejects.toMatchObject({
      status: 422,
      code: 'plugin.invalid_code',
    });
    await expect(
      code.upload(tenantA, 'bad', '1.0.0', Buffer.from([0x65, 0xff, 0xfe])),
    ).rejects.toMatchObject({
      status: 422,
      detail: expect.stringContaining('not valid UTF-8'),
    });
    await expect(code.versions('tenant-a', 'bad')).rejects.toMatchObject({
      status: 404,
      code: 'plugin.not_found',
    });
    await expect(code.versions('tenant-a', 'big')).rejects.toMatchObject({ status: 404 });
  });

  it('lists versions newest first by semantic version, with whether each has a manifest', async () => {
    for (const version of ['1.2.0', '1.10.0', '1.9.0', '2.0.0-beta.1']) {
      await code.upload(tenantA, 'sorted', version, CODE);
    }
    await manifests.upload(tenantA, 'sorted', manifest('1.10.0'));
    const versions = await code.versions('tenant-a', 'sorted');
    expect(versions.map((v) => [v.version, v.hasManifest])).toEqual([
      ['2.0.0-beta.1', false],
      ['1.10.0', true],
      ['1.9.0', false],
      ['1.2.0', false],
    ]);
  });

  it('refuses a manifest for a version without code, and one whose defaults do not fit their types', async () => {
    await expect(manifests.upload(tenantA, 'banner', manifest('9.9.9'))).rejects.toMatchObject({
      status: 422,
      code: 'plugin.code_missing',
    });
    await expect(
      manifests.upload(
        tenantA,
        'banner',
        manifest('1.0.0', [
          { name: 'title', type: 'string', required: true, default: 3 },
          { name: 'title', type: 'string', required: false },
        ]),
      ),
    ).rejects.toMatchObject({
      status: 422,
      code: 'plugin.invalid_manifest',
      errors: [
        { path: 'parameters[0].default', message: 'default must be of type string, got number' },
        { path: 'parameters[1].name', message: 'parameter "title" is declared twice' },
      ],
    });
    await expect(manifests.manifest('tenant-a', 'banner', '1.0.0')).rejects.toMatchObject({
      code: 'plugin.manifest_not_found',
    });
  });

  it('switches a config only to versions with code and manifest whose parameters the config satisfies, keeping further members', async () => {
    await code.upload(tenantA, 'promo', '1.0.0', CODE);
    await expect(
      configs.create(tenantA, { name: 'promo', version: '1.0.0', config: {}, extra: {} }),
    ).rejects.toMatchObject({ status: 422, code: 'plugin.version_not_ready' });

    await manifests.upload(
      tenantA,
      'promo',
      manifest('1.0.0', [
        { name: 'title', type: 'string', required: true },
        { name: 'limit', type: 'integer', required: false, default: 3 },
      ]),
    );
    const created = await configs.create(tenantA, {
      name: 'promo',
      version: '1.0.0',
      config: { title: 'Hello' },
      extra: { enabled: true, placement: 'header' },
    });
    expect(created).toMatchObject({
      name: 'promo',
      version: '1.0.0',
      config: { title: 'Hello' },
      enabled: true,
      placement: 'header',
    });

    await expect(
      configs.update(tenantA, created.id, {
        name: 'promo',
        version: '2.0.0',
        config: { title: 'x' },
        extra: {},
      }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'plugin.version_not_ready',
      detail: expect.stringContaining('no code'),
    });

    await expect(
      configs.update(tenantA, created.id, {
        name: 'promo',
        version: '1.0.0',
        config: { limit: 2.5 },
        extra: {},
      }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'plugin.config_invalid',
      errors: [
        { path: 'config.title', message: 'title is required (string)' },
        { path: 'config.limit', message: 'limit must be of type integer, got number' },
      ],
    });

    const updated = await configs.update(tenantA, created.id, {
      name: 'promo',
      version: '1.0.0',
      config: { title: 'Bye', limit: 5 },
      extra: { enabled: false },
    });
    expect(updated).toMatchObject({
      id: created.id,
      config: { title: 'Bye', limit: 5 },
      enabled: false,
    });
    expect(updated).not.toHaveProperty('placement');
    expect((await outboxEvents(created.id)).map((e) => e.type)).toEqual([
      'plugin.config_updated',
      'plugin.config_updated',
    ]);
  });

  it('scopes every read and write to the tenant', async () => {
    await code.upload(tenantA, 'secret', '1.0.0', CODE);
    await manifests.upload(tenantA, 'secret', manifest('1.0.0'));
    const config = await configs.create(tenantA, {
      name: 'secret',
      version: '1.0.0',
      config: {},
      extra: {},
    });

    await expect(code.code('tenant-b', 'secret', '1.0.0')).rejects.toMatchObject({ status: 404 });
    await expect(code.versions('tenant-b', 'secret')).rejects.toMatchObject({ status: 404 });
    await expect(manifests.manifest('tenant-b', 'secret', '1.0.0')).rejects.toMatchObject({
      status: 404,
    });
    await expect(manifests.upload(tenantB, 'secret', manifest('1.0.0'))).rejects.toMatchObject({
      code: 'plugin.code_missing',
    });
    await expect(
      configs.create(tenantB, { name: 'secret', version: '1.0.0', config: {}, extra: {} }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      configs.update(tenantB, config.id, {
        name: 'secret',
        version: '1.0.0',
        config: {},
        extra: {},
      }),
    ).rejects.toMatchObject({ status: 404, code: 'plugin.config_not_found' });
    expect(await configs.list('tenant-b', { name: 'secret', limit: 20 })).toEqual({ items: [] });
    const listed = await configs.list('tenant-a', { name: 'secret', limit: 20 });
    expect(listed.items.map((c) => c.id)).toEqual([config.id]);
    expect(listed.nextCursor).toBeUndefined();
  });

  it('lists configs a page at a time, oldest first, each once, whatever is created or renamed meanwhile', async () => {
    const tenant: RegistryActor = { tenantId: 'tenant-pages', clientId: 'ci-p' };
    for (const name of ['page-b', 'page-a', 'page-c']) {
      await code.upload(tenant, name, '1.0.0', CODE);
      await manifests.upload(tenant, name, manifest('1.0.0'));
    }
    const created: string[] = [];
    for (const name of ['page-b', 'page-a', 'page-b', 'page-a', 'page-b']) {
      created.push(
        (await configs.create(tenant, { name, version: '1.0.0', config: {}, extra: {} })).id,
      );
    }
    const expected = [...created];

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await configs.list(tenant.tenantId, { limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      if (pages === 0) {
        // After the first page: one config created, and one already listed renamed.
        const late = await configs.create(tenant, {
          name: 'page-a',
          version: '1.0.0',
          config: {},
          extra: {},
        });
        expected.push(late.id);
        await configs.update(tenant, created[0], {
          name: 'page-c',
          version: '1.0.0',
          config: {},
          extra: {},
        });
      }
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);

    const onlyA = await configs.list(tenant.tenantId, { name: 'page-a', limit: 1 });
    expect(onlyA.items.map((item) => item.id)).toEqual([created[1]]);
    const restOfA = await configs.list(tenant.tenantId, {
      name: 'page-a',
      limit: 2,
      cursor: onlyA.nextCursor,
    });
    expect(restOfA.items.map((item) => item.id)).toEqual([created[3], expected[5]]);
    expect(restOfA.nextCursor).toBeUndefined();

    const cursorOf = (position: unknown) =>
      Buffer.from(JSON.stringify(position)).toString('base64url');
    const id = created[0];
    for (const bad of [
      'x',
      cursorOf(['2026-11-29T10:00:00.000000Z', 'nope']),
      // Well formed, but no instant: PostgreSQL would refuse them (a 500 before).
      cursorOf(['2026-02-30T10:00:00.000000Z', id]),
      cursorOf(['2026-11-29T25:61:61.000000Z', id]),
      cursorOf(['0000-01-01T00:00:00.000000Z', id]),
    ]) {
      await expect(configs.list(tenant.tenantId, { limit: 2, cursor: bad })).rejects.toMatchObject({
        status: 400,
        errors: [{ path: 'cursor', message: 'is not a cursor of this list' }],
      });
    }
  });
});
