import { createCloudEvent, EventTypes } from '@comanda/contracts';
import { Client } from 'pg';
import { adminCall, adminToken, provisionClient } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';

interface Listed {
  items: Array<{ id: string; service: string; eventId: string; error: string; failedAt: string }>;
  unavailable: string[];
}

/**
 * The operator's view of dead letters through the gateway. No production consumer fails on
 * purpose, so the letters are put in the services' tables as a consumer would park them.
 */
describe('GET/POST/DELETE /admin/dead-letters through the gateway', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform('dead_letters_e2e');
  });
  afterAll(async () => {
    await platform?.close();
  });

  async function park(schema: string, error: string, failedAt: string): Promise<string> {
    const event = createCloudEvent('/comanda/test', {
      type: EventTypes.ConfigUpdated,
      tenantId: 'tenant-a',
      subject: 'cfg-1',
      data: { entity: 'x', configId: 'cfg-1', version: 1, publisher: 'p', deleted: false },
    });
    const client = new Client({ connectionString: platform.databaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "${schema}".dead_letters (consumer, event_id, event_type, tenant_id, event, error, attempts, failed_at)
         VALUES ($1, $2, $3, 'tenant-a', $4, $5, 4, $6)`,
        [`${schema}.gone`, event.id, event.type, JSON.stringify(event), error, failedAt],
      );
    } finally {
      await client.end();
    }
    return event.id;
  }

  it('merges every service’s dead letters newest first, each id naming its service', async () => {
    const older = await park('auth', 'auth handler failed', '2026-01-01T10:00:00Z');
    const newer = await park('config', 'config handler failed', '2026-01-02T10:00:00Z');

    const listed = await adminCall<Listed>(platform, 'GET', '/admin/dead-letters');

    expect(listed.status).toBe(200);
    expect(listed.body.unavailable).toEqual([]);
    expect(listed.body.items.map((item) => item.eventId)).toEqual([newer, older]);
    expect(listed.body.items[0]).toMatchObject({
      id: expect.stringMatching(/^config-store\.[0-9]+$/),
      service: 'config-store',
      error: 'config handler failed',
    });
    expect(listed.body.items[1].id).toMatch(/^auth\.[0-9]+$/);
  });

  it('routes a purge to the owning service, and a replay of a consumer that no longer exists fails clearly', async () => {
    const listed = await adminCall<Listed>(platform, 'GET', '/admin/dead-letters');
    const [first] = listed.body.items;

    const replay = await adminCall<{ code: string }>(
      platform,
      'POST',
      `/admin/dead-letters/${first.id}/replay`,
    );
    expect(replay.status).toBe(422);
    expect(replay.body.code).toBe('dead_letter.replay_failed');

    expect((await adminCall(platform, 'DELETE', `/admin/dead-letters/${first.id}`)).status).toBe(
      204,
    );
    const after = await adminCall<Listed>(platform, 'GET', '/admin/dead-letters');
    expect(after.body.items.map((item) => item.id)).not.toContain(first.id);
    const unknown = await adminCall<{ code: string }>(
      platform,
      'DELETE',
      '/admin/dead-letters/nowhere.1',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('dead_letter.not_found');
  });

  it('refuses callers without platform:admin as every route does: challenge, and the answer’s request id', async () => {
    const tenant = await provisionClient(platform, {
      tenantId: 'tenant-dead-letters',
      permissions: ['orders:read'],
    });
    const cases: Array<[string, Record<string, string>, number, string, string | undefined]> = [
      ['no token', { 'x-api-version': '0' }, 401, 'auth.token_missing', 'Bearer'],
      [
        'a tenant token',
        { 'x-api-version': '0', authorization: `Bearer ${await tenant.token()}` },
        403,
        'auth.insufficient_scope',
        'insufficient_scope',
      ],
    ];
    for (const [who, headers, status, code, challenge] of cases) {
      for (const [method, path] of [
        ['GET', '/admin/dead-letters'],
        ['POST', '/admin/dead-letters/orders.1/replay'],
        ['DELETE', '/admin/dead-letters/orders.1'],
        // An id naming no service is refused for the caller first, never described to them.
        ['POST', '/admin/dead-letters/nowhere.1/replay'],
        ['DELETE', '/admin/dead-letters/not-an-id'],
      ]) {
        const response = await fetch(`${platform.baseUrl}${path}`, { method, headers });
        const body = (await response.json()) as { code: string; requestId: string };
        expect({ who, method, status: response.status, code: body.code }).toEqual({
          who,
          method,
          status,
          code,
        });
        expect(response.headers.get('www-authenticate')).toContain(challenge);
        expect(body.requestId).toBe(response.headers.get('x-request-id'));
      }
    }
  });

  it('answers a missing or unsupported X-Api-Version with 400, as every route does', async () => {
    const token = await adminToken(platform);
    for (const version of [undefined, '1']) {
      const response = await fetch(`${platform.baseUrl}/admin/dead-letters`, {
        headers: {
          authorization: `Bearer ${token}`,
          ...(version === undefined ? {} : { 'x-api-version': version }),
        },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: version === undefined ? 'api_version.missing' : 'api_version.unsupported',
      });
    }
  });
});
