import { openConfigStoreKit, type ConfigStoreKit } from '../testing/config-store-test-kit';

const alice = { clientId: 'alice', tenantId: 'tenant-a' };
const bob = { clientId: 'bob', tenantId: 'tenant-b' };
const save = { dryRun: false };
const dryRun = { dryRun: true };

describe('ConfigService (real database)', () => {
  let kit: ConfigStoreKit;
  beforeAll(async () => {
    kit = await openConfigStoreKit('config_service');
  });
  afterAll(() => kit.close());

  it('creates version 1, then each save adds the next version and old versions stay readable', async () => {
    const first = await kit.configs.create(
      alice,
      'pos',
      { id: 'pos-config', values: { tax: 7 } },
      save,
    );
    expect(first.config).toMatchObject({
      id: 'pos-config',
      entity: 'pos',
      version: 1,
      publisher: 'alice',
      deleted: false,
    });
    kit.clock.advance(1000);
    const second = await kit.configs.update(
      alice,
      'pos',
      { id: 'pos-config', values: { tax: 8 } },
      save,
    );
    kit.clock.advance(1000);
    const third = await kit.configs.update(
      alice,
      'pos',
      { id: 'pos-config', values: { tax: 9 } },
      save,
    );
    expect([second.version, third.version]).toEqual([2, 3]);
    expect(third.config.createdAt).toBe(first.config.createdAt);
    expect(third.config.lastUpdateDate).not.toBe(first.config.lastUpdateDate);
    expect((await kit.configs.getVersion(alice, 'pos', 1)).config.values).toEqual({ tax: 7 });
    expect(
      (await kit.configs.getCurrent(alice, 'pos', { includeDeleted: false })).config.values,
    ).toEqual({ tax: 9 });
    const versions = await kit.configs.listVersions(alice, 'pos', {
      take: 2,
      includeDeleted: false,
      includeDatatypes: true,
    });
    expect(versions.map((version) => version.version)).toEqual([3, 2]);
    expect(versions[0].dataTypes).toEqual({ tax: 'number' });
  });

  it('the GETs answer, byte for byte, what the stored version reads as through its entity', async () => {
    // The GETs take their output straight from SQL; listVersions maps the entity.
    const text = (output: object) => JSON.stringify(output);
    const values = { zone: 'Zürich 🍕', tax: 7.5, nested: { list: [1, 'two', null, true] } };
    kit.clock.advance(1029);
    const first = await kit.configs.create(alice, 'bytes', { id: 'bytes', values }, save);
    kit.clock.advance(1001);
    const second = await kit.configs.update(alice, 'bytes', { id: 'bytes', values: {} }, save);
    const listed = await kit.configs.listVersions(alice, 'bytes', {
      take: 2,
      includeDeleted: false,
      includeDatatypes: false,
    });
    const [two, one] = listed.map(text);
    expect(text((await kit.configs.getVersion(alice, 'bytes', 1)).config)).toBe(one);
    expect(text((await kit.configs.getVersion(alice, 'bytes', 2)).config)).toBe(two);
    const current = await kit.configs.getCurrent(alice, 'bytes', { includeDeleted: false });
    expect(text(current.config)).toBe(two);
    // The same members and instants the saves answered (jsonb keeps its own member order).
    expect(JSON.parse(one)).toEqual(first.config);
    expect(JSON.parse(two)).toEqual(second.config);
    kit.clock.advance(7);
    const removed = await kit.configs.remove(alice, 'bytes', {});
    const latest = await kit.configs.getCurrent(alice, 'bytes', { includeDeleted: true });
    expect(text(latest.config)).toBe(text(removed.config));
    expect(latest.version).toBe(2);
    expect(latest.config.lastUpdateDate).not.toBe(second.config.lastUpdateDate);
  });

  it('keeps each tenant and each entity its own namespace', async () => {
    await kit.configs.create(alice, 'menu', { id: 'menu' }, save);
    await expect(
      kit.configs.getCurrent(bob, 'menu', { includeDeleted: false }),
    ).rejects.toMatchObject({ code: 'config.not_found' });
    await expect(kit.configs.create(bob, 'menu', { id: 'menu' }, save)).resolves.toMatchObject({
      version: 1,
    });
    await expect(kit.configs.create(alice, 'menu', { id: 'menu' }, save)).rejects.toMatchObject({
      status: 409,
      code: 'config.already_exists',
    });
  });

  it('dry run answers what a save would and stores nothing, not even an event', async () => {
    await kit.configs.create(alice, 'dry', { id: 'dry', values: { a: 1 } }, save);
    const eventsBefore = await kit.outboxTypes();
    kit.clock.advance(5000);
    const preview = await kit.configs.update(alice, 'dry', { id: 'dry', values: { a: 2 } }, dryRun);
    expect(preview.config).toMatchObject({ version: 2, values: { a: 2 } });
    expect(await kit.outboxTypes()).toEqual(eventsBefore);
    const current = await kit.configs.getCurrent(alice, 'dry', { includeDeleted: false });
    expect(current.config).toMatchObject({ version: 1, values: { a: 1 } });
    const real = await kit.configs.update(alice, 'dry', { id: 'dry', values: { a: 2 } }, save);
    expect(real.config).toEqual(preview.config);
    await expect(kit.configs.create(alice, 'dry-new', { id: 'x' }, dryRun)).resolves.toMatchObject({
      config: { version: 1 },
    });
    await expect(
      kit.configs.getCurrent(alice, 'dry-new', { includeDeleted: false }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('refuses a stale If-Match with config.version_conflict; racing saves without one all land, in turn', async () => {
    await kit.configs.create(alice, 'race', { id: 'race' }, save);
    await kit.configs.update(alice, 'race', { id: 'race' }, { dryRun: false, ifMatch: '"1"' });
    await expect(
      kit.configs.update(alice, 'race', { id: 'race' }, { dryRun: false, ifMatch: '"1"' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'config.version_conflict',
    });
    const written = [1, 2, 3, 4, 5, 6];
    const results = await Promise.all(
      written.map((w) => kit.configs.update(alice, 'race', { id: 'race', values: { w } }, save)),
    );
    expect(results.map((result) => result.version).sort()).toEqual([3, 4, 5, 6, 7, 8]);
    const versions = await kit.configs.listVersions(alice, 'race', {
      take: 10,
      includeDeleted: false,
      includeDatatypes: false,
    });
    expect(versions.map((version) => version.version)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    // Each version holds what its own save wrote.
    for (const result of results) {
      expect(versions.find((version) => version.version === result.version)?.values).toEqual(
        result.config.values,
      );
    }
    // Of If-Match saves racing for the same version, exactly one wins.
    const conditional = await Promise.allSettled(
      written.map((w) =>
        kit.configs.update(
          alice,
          'race',
          { id: 'race', values: { w } },
          { dryRun: false, ifMatch: '"8"' },
        ),
      ),
    );
    expect(conditional.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of conditional) {
      if (result.status === 'rejected')
        expect(result.reason).toMatchObject({ code: 'config.version_conflict' });
    }
  });

  it('answers 422 naming each member of an order-charges config that is no charge item, on save and on dry run alike', async () => {
    const fee = { title: 'Delivery', amount: 500, mappingDetails: { 'fee.code': '0099' } };
    const broken = {
      id: 'charges',
      values: {
        deliveryFee: { ...fee, mappingDetails: { 'fee.code': 99 } },
        serviceCharge: { title: 'Service', amount: -150 },
      },
    };
    for (const options of [save, dryRun]) {
      await expect(
        kit.configs.create(alice, 'order-charges', broken, options),
      ).rejects.toMatchObject({
        status: 422,
        code: 'config.values_invalid',
        errors: [
          {
            path: 'values.deliveryFee.mappingDetails',
            message: 'the value of "fee.code" must be a string',
          },
          expect.objectContaining({ path: 'values.serviceCharge.amount' }),
        ],
      });
    }
    await expect(
      kit.configs.getCurrent(alice, 'order-charges', { includeDeleted: false }),
    ).rejects.toMatchObject({ status: 404 });
    // The same values under another entity are free-form settings, saved as given.
    await expect(kit.configs.create(alice, 'charges-notes', broken, save)).resolves.toMatchObject({
      version: 1,
    });
    const saved = await kit.configs.create(
      alice,
      'order-charges',
      { id: 'charges', values: { deliveryFee: fee, note: 'kept' } },
      save,
    );
    expect(saved.config.values).toEqual({ deliveryFee: fee, note: 'kept' });
    await expect(kit.configs.update(alice, 'order-charges', broken, save)).rejects.toMatchObject({
      status: 422,
      code: 'config.values_invalid',
    });
  });

  it('answers 422 naming each reference to a missing extension, on save and on dry run alike', async () => {
    await kit.extensions.create(alice, 'refs', {
      id: 'ext-ok',
      version: '1.0.0',
      availability: 'Public',
    });
    const input = {
      id: 'refs',
      extensionReferences: [
        { publisher: 'alice', dataId: 'ext-ok', version: '1.0.0' },
        { publisher: 'alice', dataId: 'ext-missing', version: '1.0.0' },
        { publisher: 'mallory', dataId: 'ext-ok', version: '1.0.0' },
      ],
    };
    for (const options of [save, dryRun]) {
      await expect(kit.configs.create(alice, 'refs', input, options)).rejects.toMatchObject({
        status: 422,
        code: 'extension.reference_invalid',
        errors: [
          expect.objectContaining({ path: 'extensionReferences[1]' }),
          expect.objectContaining({ path: 'extensionReferences[2]' }),
        ],
      });
    }
    const ok = await kit.configs.create(
      alice,
      'refs',
      { ...input, extensionReferences: input.extensionReferences.slice(0, 1) },
      save,
    );
    expect(ok.version).toBe(1);
  });

  it('removing marks every version; include_deleted shows it and a new POST continues the numbering', async () => {
    await kit.configs.create(alice, 'gone', { id: 'gone' }, save);
    await kit.configs.update(alice, 'gone', { id: 'gone' }, save);
    const removed = await kit.configs.remove(alice, 'gone', {});
    expect(removed.config).toMatchObject({ version: 2, deleted: true });
    await expect(
      kit.configs.getCurrent(alice, 'gone', { includeDeleted: false }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      kit.configs.getCurrent(alice, 'gone', { includeDeleted: true }),
    ).resolves.toMatchObject({ version: 2 });
    expect(
      await kit.configs.listVersions(alice, 'gone', {
        take: 5,
        includeDeleted: false,
        includeDatatypes: false,
      }),
    ).toEqual([]);
    await expect(kit.configs.update(alice, 'gone', { id: 'gone' }, save)).rejects.toMatchObject({
      code: 'config.not_found',
    });
    await expect(kit.configs.create(alice, 'gone', { id: 'gone' }, save)).resolves.toMatchObject({
      version: 3,
    });
  });

  it('writes config.updated to the outbox for each save', async () => {
    const before = (await kit.outboxTypes()).length;
    await kit.configs.create(alice, 'events', { id: 'events' }, save);
    await kit.configs.update(alice, 'events', { id: 'events' }, save);
    expect((await kit.outboxTypes()).slice(before)).toEqual(['config.updated', 'config.updated']);
  });
});
