import { openConfigStoreKit, type ConfigStoreKit } from '../testing/config-store-test-kit';

const alice = { clientId: 'alice', tenantId: 'tenant-a' };
const aliceColleague = { clientId: 'alice-ci', tenantId: 'tenant-a' };
const bob = { clientId: 'bob', tenantId: 'tenant-b' };
const visibleOnly = { includeDeleted: false, includePrivate: false };
const withPrivate = { includeDeleted: false, includePrivate: true };
const page = { limit: 20 };

describe('ExtensionService (real database)', () => {
  let kit: ConfigStoreKit;
  beforeAll(async () => {
    kit = await openConfigStoreKit('extension_service');
  });
  afterAll(() => kit.close());

  it('keeps one id per platform: another publisher gets extension.id_taken', async () => {
    await kit.extensions.create(alice, 'market', {
      id: 'loyalty',
      version: '1.0.0',
      availability: 'Public',
    });
    await expect(
      kit.extensions.create(bob, 'market', {
        id: 'loyalty',
        version: '9.0.0',
        availability: 'Public',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'extension.id_taken' });
    await expect(
      kit.extensions.create(bob, 'elsewhere', {
        id: 'loyalty',
        version: '9.0.0',
        availability: 'Public',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'extension.id_taken' });
  });

  it('shows a private extension only to its tenant and only with include_private', async () => {
    await kit.extensions.create(alice, 'vis', {
      id: 'secret',
      version: '1',
      availability: 'Private',
    });
    await kit.extensions.create(alice, 'vis', { id: 'open', version: '1', availability: 'Public' });
    await expect(kit.extensions.get(bob, 'vis', 'secret', withPrivate)).rejects.toMatchObject({
      status: 404,
    });
    await expect(kit.extensions.get(alice, 'vis', 'secret', visibleOnly)).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      kit.extensions.get(aliceColleague, 'vis', 'secret', withPrivate),
    ).resolves.toMatchObject({
      extension: { id: 'secret', availability: 'Private' },
    });
    const ids = async (actor: typeof alice, includePrivate: boolean) =>
      (
        await kit.extensions.list(actor, 'vis', {
          ...visibleOnly,
          includePrivate,
          complete: false,
          page,
        })
      ).map((e) => e.id);
    expect(await ids(bob, true)).toEqual(['open']);
    expect(await ids(alice, false)).toEqual(['open']);
    expect(await ids(alice, true)).toEqual(['secret', 'open']);
  });

  it('keeps every version, answers the latest, and guards PUT with If-Match', async () => {
    const created = await kit.extensions.create(alice, 'ver', {
      id: 'tips',
      version: '1.0.0',
      availability: 'Public',
    });
    kit.clock.advance(1000);
    const updated = await kit.extensions.update(
      alice,
      'ver',
      'tips',
      { id: 'tips', version: '1.1.0', availability: 'Public', baseType: 'Payment' },
      { includeDeleted: false, ifMatch: `"${created.revision}"` },
    );
    expect(updated.extension).toMatchObject({ version: '1.1.0', baseType: 'Payment' });
    expect((await kit.extensions.get(bob, 'ver', 'tips', visibleOnly)).extension.version).toBe(
      '1.1.0',
    );
    await expect(
      kit.extensions.update(
        alice,
        'ver',
        'tips',
        { id: 'tips', version: '1.2.0', availability: 'Public' },
        {
          includeDeleted: false,
          ifMatch: `"${created.revision}"`,
        },
      ),
    ).rejects.toMatchObject({ status: 409, code: 'config.version_conflict' });
    // The old version stays pinnable by a config.
    await expect(
      kit.configs.create(
        bob,
        'pinned',
        {
          id: 'p',
          extensionReferences: [{ publisher: 'alice', dataId: 'tips', version: '1.0.0' }],
        },
        { dryRun: true },
      ),
    ).resolves.toMatchObject({ config: { version: 1 } });
    await expect(
      kit.extensions.update(
        bob,
        'ver',
        'tips',
        { id: 'tips', version: '2', availability: 'Public' },
        { includeDeleted: false },
      ),
    ).rejects.toMatchObject({ status: 409, code: 'extension.not_publisher' });
  });

  it('hides a removed extension unless include_deleted, and PUT with include_deleted restores it', async () => {
    await kit.extensions.create(alice, 'rm', { id: 'old', version: '1', availability: 'Public' });
    const removed = await kit.extensions.remove(alice, 'rm', 'old');
    expect(removed.extension.deleted).toBe(true);
    await expect(kit.extensions.get(alice, 'rm', 'old', visibleOnly)).rejects.toMatchObject({
      code: 'extension.not_found',
    });
    await expect(
      kit.extensions.get(alice, 'rm', 'old', { ...visibleOnly, includeDeleted: true }),
    ).resolves.toMatchObject({
      extension: { deleted: true },
    });
    const list = (includeDeleted: boolean) =>
      kit.extensions.list(alice, 'rm', {
        includeDeleted,
        includePrivate: false,
        complete: true,
        page,
      });
    expect(await list(false)).toEqual([]);
    expect(await list(true)).toEqual([expect.objectContaining({ id: 'old', deleted: true })]);
    const input = { id: 'old', version: '2', availability: 'Public' as const };
    await expect(
      kit.extensions.update(alice, 'rm', 'old', input, { includeDeleted: false }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      kit.extensions.update(alice, 'rm', 'old', input, { includeDeleted: true }),
    ).resolves.toMatchObject({
      extension: { deleted: false, version: '2' },
    });
    expect(
      (await kit.outboxTypes()).filter((type) => type.startsWith('extension.')).slice(-2),
    ).toEqual(['extension.deleted', 'extension.updated']);
  });

  it('refuses an extension whose own references do not resolve', async () => {
    await expect(
      kit.extensions.create(alice, 'deps', {
        id: 'needs-missing',
        version: '1',
        availability: 'Public',
        extensionReferences: { base: { publisher: 'alice', dataId: 'nope', version: '1' } },
      }),
    ).rejects.toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ path: 'extensionReferences.base' })],
    });
  });
});
