import { decodeProtectedHeader } from 'jose';
import { decryptCredentialsFile } from '@comanda/service-auth';
import { waitFor } from '@comanda/testing';
import { adminCall, provisionClient, requestToken } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { AUTH_KEYS_ENV, get, query } from './auth-test-kit';

// Long enough for 100 attempts (the first ten are slowed), short enough to wait out.
// Long enough that ten slowed-down failures on a busy CI machine stay inside one window.
const FAILURE_WINDOW_SECONDS = 20;

describe('auth: client lifecycle and signing keys through the gateway', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_auth_lifecycle', {
      env: { ...AUTH_KEYS_ENV, AUTH_FAILURE_WINDOW_SECONDS: String(FAILURE_WINDOW_SECONDS) },
    });
  }, 120_000);
  afterAll(() => platform?.close());

  const connections = '/entities/lifecycle/connections';
  const newClient = {
    name: 'POS vendor',
    tenantIds: ['life-a'],
    environment: 'test',
    permissions: ['connections:read'],
    personalData: false,
    contacts: { primary: 'ops@vendor.example', secondary: '+41 44 111 22 33' },
    useCase: 'Reads connections for its POS',
  };

  it('lists every permission with the endpoints it opens', async () => {
    const { status, body } = await adminCall<Array<{ name: string; endpoints: string[] }>>(
      platform,
      'GET',
      '/admin/permissions',
    );
    expect(status).toBe(200);
    expect(body.map((permission) => permission.name)).toEqual(
      expect.arrayContaining([
        'configs:read',
        'orders:placement',
        'personal-data:read',
        'platform:admin',
      ]),
    );
    expect(body.find((permission) => permission.name === 'orders:placement')?.endpoints).toContain(
      'POST /orders/{id}/pos/placed',
    );
  });

  it('creates and lists tenants; refuses a duplicate with 409', async () => {
    expect(
      (await adminCall(platform, 'POST', '/admin/tenants', { id: 'life-a', name: 'Life A' }))
        .status,
    ).toBe(201);
    expect(
      (await adminCall(platform, 'POST', '/admin/tenants', { id: 'life-a', name: 'Again' })).status,
    ).toBe(409);
    const { body } = await adminCall<Array<{ id: string }>>(platform, 'GET', '/admin/tenants');
    expect(body.map((tenant) => tenant.id)).toEqual(expect.arrayContaining(['platform', 'life-a']));
  });

  it('refuses a client whose secondary contact equals the primary one (422)', async () => {
    const { status, body } = await adminCall(platform, 'POST', '/admin/clients', {
      ...newClient,
      contacts: { primary: 'ops@vendor.example', secondary: 'ops@vendor.example' },
    });
    expect(status).toBe(422);
    expect(body).toMatchObject({ code: 'auth.invalid_client_definition' });
  });

  it('hands out credentials as an encrypted file whose passphrase comes separately', async () => {
    const { status, body } = await adminCall<{
      clientId: string;
      credentialsFile: string;
      passphrase: string;
    }>(platform, 'POST', '/admin/clients', { ...newClient, credentialsFile: true });
    expect(status).toBe(201);
    expect(Object.keys(body).sort()).toEqual(['clientId', 'credentialsFile', 'passphrase']);
    expect(body.credentialsFile).not.toContain(body.passphrase);
    expect(() => decryptCredentialsFile(body.credentialsFile, 'not-the-passphrase')).toThrow();
    const credentials = decryptCredentialsFile(body.credentialsFile, body.passphrase);
    expect(credentials).toMatchObject({
      clientId: body.clientId,
      tenantIds: ['life-a'],
      environment: 'test',
    });
    expect((await requestToken(platform.baseUrl, 'life-a', credentials)).status).toBe(200);
  });

  it('adds permissions to an existing client by id', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    expect((await requestToken(platform.baseUrl, 'life-a', client, 'configs:read')).status).toBe(
      400,
    );
    const granted = await adminCall<{ permissions: string[] }>(
      platform,
      'POST',
      `/admin/clients/${client.clientId}/permissions`,
      {
        permissions: ['configs:read'],
      },
    );
    expect(granted.status).toBe(200);
    expect(granted.body.permissions).toEqual(['configs:read', 'connections:read']);
    expect((await requestToken(platform.baseUrl, 'life-a', client, 'configs:read')).status).toBe(
      200,
    );
  });

  it('rotated secret: the old one works during the grace period, not after', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    const rotated = await adminCall<{ clientSecret: string }>(
      platform,
      'POST',
      `/admin/clients/${client.clientId}/secret`,
      {
        gracePeriodSeconds: 2,
      },
    );
    expect(rotated.status).toBe(200);
    const fresh = { clientId: client.clientId, clientSecret: rotated.body.clientSecret };
    expect((await requestToken(platform.baseUrl, 'life-a', fresh)).status).toBe(200);
    expect((await requestToken(platform.baseUrl, 'life-a', client)).status).toBe(200);
    await waitFor('the old secret to stop working', async () => {
      const response = await requestToken(platform.baseUrl, 'life-a', client);
      return (
        response.status === 401 &&
        ((await response.json()) as { error: string }).error === 'invalid_client'
      );
    });
    expect((await requestToken(platform.baseUrl, 'life-a', fresh)).status).toBe(200);
  });

  it('revoked client: no token, and tokens are refused for it from then on', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    expect((await requestToken(platform.baseUrl, 'life-a', client)).status).toBe(200);
    const revoked = await adminCall<{ revokedAt: string | null }>(
      platform,
      'DELETE',
      `/admin/clients/${client.clientId}`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const refused = await requestToken(platform.baseUrl, 'life-a', client);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
    const [event] = await query<{ event_type: string }>(
      platform,
      `SELECT event_type FROM auth.outbox WHERE subject = $1 AND event_type = 'auth.client_revoked'`,
      [client.clientId],
    );
    expect(event).toBeDefined();
  });

  it('100 wrong secrets in a row: 429 with Retry-After, and the right secret works after the window', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    const wrong = { clientId: client.clientId, clientSecret: 'x'.repeat(43) };
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    const attempt = async () => {
      const response = await requestToken(platform.baseUrl, 'life-a', wrong);
      if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
      await response.arrayBuffer();
      return response.status;
    };
    // The first ten one after another (each is counted), the other ninety in bursts: a
    // locked-out caller is refused at once, however fast it tries.
    for (let index = 0; index < 10; index++) statuses.push(await attempt());
    for (let burst = 0; burst < 9; burst++) {
      statuses.push(...(await Promise.all(Array.from({ length: 10 }, attempt))));
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(FAILURE_WINDOW_SECONDS);
    // Locked out: even the right secret is refused until the window has passed.
    expect((await requestToken(platform.baseUrl, 'life-a', client)).status).toBe(429);
    await waitFor(
      'the right secret to work again after the window',
      async () => (await requestToken(platform.baseUrl, 'life-a', client)).status === 200,
      { timeoutMs: (FAILURE_WINDOW_SECONDS + 5) * 1000, intervalMs: 500 },
    );
  }, 90_000);

  it('signing-key rotation: tokens signed before and after both verify', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    const before = (
      (await (await requestToken(platform.baseUrl, 'life-a', client)).json()) as {
        access_token: string;
      }
    ).access_token;
    expect((await get(platform, connections, before)).status).toBe(200);
    const jwksBefore = (await (
      await fetch(`${platform.baseUrl}/auth/life-a/.well-known/jwks.json`)
    ).json()) as {
      keys: Array<{ kid: string }>;
    };

    const rotated = await adminCall<{ currentKid: string; nextKid: string }>(
      platform,
      'POST',
      '/admin/keys/rotate',
    );
    expect(rotated.status).toBe(200);
    // The key that signs now was published before it signed.
    expect(jwksBefore.keys.map((key) => key.kid)).toContain(rotated.body.currentKid);

    const after = await waitFor('a token signed with the new key', async () => {
      const body = (await (await requestToken(platform.baseUrl, 'life-a', client)).json()) as {
        access_token: string;
      };
      return decodeProtectedHeader(body.access_token).kid === rotated.body.currentKid
        ? body.access_token
        : undefined;
    });
    expect(decodeProtectedHeader(before).kid).not.toBe(decodeProtectedHeader(after).kid);
    expect((await get(platform, connections, after)).status).toBe(200);
    expect((await get(platform, connections, before)).status).toBe(200);
    const jwksAfter = (await (
      await fetch(`${platform.baseUrl}/auth/life-a/.well-known/jwks.json`)
    ).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(jwksAfter.keys.map((key) => key.kid)).toEqual(
      expect.arrayContaining([
        decodeProtectedHeader(before).kid,
        rotated.body.currentKid,
        rotated.body.nextKid,
      ]),
    );
  });

  it('a dump of every auth table after creating a client contains no plaintext secret', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'life-a',
      permissions: ['connections:read'],
    });
    const tables = await query<{ table_name: string }>(
      platform,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'auth'`,
    );
    expect(tables.map((table) => table.table_name)).toEqual(
      expect.arrayContaining(['clients', 'client_secrets']),
    );
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await query<{ row: string }>(
        platform,
        `SELECT t::text AS row FROM auth."${table_name}" t`,
      );
      dump += rows.map((row) => row.row).join('\n');
    }
    expect(dump).toContain(client.clientId);
    expect(dump).not.toContain(client.clientSecret);
    expect(dump).not.toContain(Buffer.from(client.clientSecret).toString('base64'));
    expect(dump).not.toContain(platform.admin.clientSecret);
  });
});
