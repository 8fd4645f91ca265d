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

  it('keeps a published id to one publisher on the platform: another gets extension.id_taken', async () => {
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

  it('answers racing first publications of one id by one publisher: one created, the others already_exists', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        kit.extensions.create(alice, 'race', { id: 'raced', version: '1', availability: 'Public' }),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    const codes = attempts.flatMap((attempt) =>
      attempt.status === 'rejected' ? [(attempt.reason as { code?: string }).code] : [],
    );
    expect(codes).toEqual(Array(11).fill('extension.already_exists'));
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

  describe('private ids are unique within their tenant only (ADR 0016)', () => {
    type Actor = typeof alice;
    const mine = (actor: Actor, entity: string, id: string) =>
      kit.extensions.get(actor, entity, id, withPrivate);
    /** PUT of a version of `id` by its publisher. */
    const save = (
      actor: Actor,
      entity: string,
      id: string,
      version: string,
      availability: 'Public' | 'Private',
    ) =>
      kit.extensions.update(
        actor,
        entity,
        id,
        { id, version, availability },
        { includeDeleted: false },
      );

    it('lets another tenant create a private id a tenant already uses, and each keeps its own', async () => {
      await kit.extensions.create(alice, 'own', {
        id: 'draft',
        version: 'a',
        availability: 'Private',
      });
      await expect(
        kit.extensions.create(bob, 'own', { id: 'draft', version: 'b', availability: 'Private' }),
      ).resolves.toMatchObject({ extension: { id: 'draft', publisher: 'bob' } });
      await expect(mine(alice, 'own', 'draft')).resolves.toMatchObject({
        extension: { publisher: 'alice', version: 'a' },
      });
      await expect(mine(bob, 'own', 'draft')).resolves.toMatchObject({
        extension: { publisher: 'bob', version: 'b' },
      });
      const listed = await kit.extensions.list(bob, 'own', {
        ...withPrivate,
        complete: false,
        page,
      });
      expect(listed).toEqual([expect.objectContaining({ id: 'draft', publisher: 'bob' })]);
      // Within one tenant the id stays taken, whoever of its clients asks.
      await expect(
        kit.extensions.create(aliceColleague, 'own', {
          id: 'draft',
          version: 'c',
          availability: 'Private',
        }),
      ).rejects.toMatchObject({ status: 409, code: 'extension.id_taken' });
      await expect(
        kit.extensions.create(alice, 'own', { id: 'draft', version: 'c', availability: 'Private' }),
      ).rejects.toMatchObject({ status: 409, code: 'extension.already_exists' });
    });

    it('answers writes to another tenant private id exactly as to an unused id', async () => {
      await kit.extensions.create(alice, 'hidden', {
        id: 'hush',
        version: '1',
        availability: 'Private',
      });
      const attempts = (id: string) => [
        kit.extensions.get(bob, 'hidden', id, withPrivate),
        kit.extensions.update(
          bob,
          'hidden',
          id,
          { id, version: '2', availability: 'Public' },
          { includeDeleted: true },
        ),
        kit.extensions.remove(bob, 'hidden', id),
      ];
      const outcome = (attempt: Promise<unknown>) =>
        attempt.then(
          () => 'resolved',
          (error: { status: number; code: string }) => `${error.status} ${error.code}`,
        );
      const taken = await Promise.all(attempts('hush').map(outcome));
      const unused = await Promise.all(attempts('never-used').map(outcome));
      expect(taken).toEqual(unused);
      expect(taken).toEqual(Array(3).fill('404 extension.not_found'));
    });

    it('lets a tenant publish an id another tenant uses privately; the owner still reads its own', async () => {
      await kit.extensions.create(alice, 'both', {
        id: 'menu',
        version: 'a1',
        availability: 'Private',
      });
      await kit.extensions.create(bob, 'both', {
        id: 'menu',
        version: 'b1',
        availability: 'Public',
      });
      // Alice's own wins where she may read it; without include_private she sees Bob's.
      await expect(mine(alice, 'both', 'menu')).resolves.toMatchObject({
        extension: { publisher: 'alice', version: 'a1' },
      });
      await expect(kit.extensions.get(alice, 'both', 'menu', visibleOnly)).resolves.toMatchObject({
        extension: { publisher: 'bob', version: 'b1' },
      });
      const listed = await kit.extensions.list(alice, 'both', {
        ...withPrivate,
        complete: false,
        page,
      });
      expect(listed.map((extension) => extension.publisher)).toEqual(['alice', 'bob']);
      // References name the publisher, so each resolves to its own extension.
      const values = async (publisher: string, version: string) => {
        await kit.configs.create(
          alice,
          `uses-${publisher}`,
          {
            id: 'c',
            extensionReferences: [{ publisher, dataId: 'menu', version }],
          },
          { dryRun: false },
        );
        return kit.values.read(alice, `uses-${publisher}`, { complete: true });
      };
      expect((await values('alice', 'a1')).extensions?.[0].extension).toMatchObject({
        publisher: 'alice',
        availability: 'Private',
      });
      expect((await values('bob', 'b1')).extensions?.[0].extension).toMatchObject({
        publisher: 'bob',
        availability: 'Public',
      });
      // Alice's writes reach her own; Bob's reach his.
      await expect(save(alice, 'both', 'menu', 'a2', 'Private')).resolves.toMatchObject({
        extension: { publisher: 'alice', version: 'a2' },
      });
      await expect(kit.extensions.remove(bob, 'both', 'menu')).resolves.toMatchObject({
        extension: { publisher: 'bob', deleted: true },
      });
      await expect(mine(alice, 'both', 'menu')).resolves.toMatchObject({
        extension: { publisher: 'alice', deleted: false },
      });
    });

    it('lets a tenant make public an id another tenant uses privately, but not one another tenant published', async () => {
      await kit.extensions.create(bob, 'pub', {
        id: 'quiet',
        version: 'b1',
        availability: 'Private',
      });
      await kit.extensions.create(alice, 'pub', {
        id: 'quiet',
        version: 'a1',
        availability: 'Private',
      });
      await expect(save(alice, 'pub', 'quiet', 'a2', 'Public')).resolves.toMatchObject({
        extension: { publisher: 'alice', availability: 'Public' },
      });
      await expect(mine(bob, 'pub', 'quiet')).resolves.toMatchObject({
        extension: { publisher: 'bob', version: 'b1' },
      });
      // Alice's id is now published: Bob's private one may not become public too.
      await expect(save(bob, 'pub', 'quiet', 'b2', 'Public')).rejects.toMatchObject({
        status: 409,
        code: 'extension.id_taken',
      });
      await expect(mine(bob, 'pub', 'quiet')).resolves.toMatchObject({
        extension: { version: 'b1', availability: 'Private' },
      });
      // A published id stays claimed after its latest version turns private.
      await save(alice, 'pub', 'quiet', 'a3', 'Private');
      await expect(
        kit.extensions.create({ clientId: 'carol', tenantId: 'tenant-c' }, 'pub', {
          id: 'quiet',
          version: 'c1',
          availability: 'Public',
        }),
      ).rejects.toMatchObject({ status: 409, code: 'extension.id_taken' });
    });
  });
});
