import {
  startAuthTestService,
  TEST_ADMIN,
  type AuthTestService,
} from '../testing/auth-test-service';

const VALID_CLIENT = {
  name: 'POS integration',
  tenantIds: ['tenant-a'],
  environment: 'test',
  permissions: ['configs:read'],
  personalData: false,
  contacts: { primary: 'ops@example.com', secondary: '+49 30 1234567' },
  useCase: 'Reads the store configuration.',
};

/** A token of the bootstrapped platform admin, from `service`'s token endpoint. */
async function adminTokenOf(service: AuthTestService): Promise<string> {
  const issued = await fetch(`${service.url}/auth/platform/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.clientId,
      client_secret: TEST_ADMIN.clientSecret,
    }).toString(),
  });
  return ((await issued.json()) as { access_token: string }).access_token;
}

describe('admin API input validation', () => {
  let auth: AuthTestService;
  let adminToken: string;

  beforeAll(async () => {
    auth = await startAuthTestService('auth_admin_input');
    adminToken = await adminTokenOf(auth);
    expect((await admin('POST', '/admin/tenants', { id: 'tenant-a', name: 'A' })).status).toBe(201);
  });
  afterAll(() => auth?.close());

  function admin(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${auth.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'x-api-version': '0',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async function expectInvalid(response: Response, path: string): Promise<void> {
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: Array<{ path: string }> };
    expect(problem.code).toBe('request.invalid');
    expect(problem.errors.map((error) => error.path)).toContain(path);
  }

  it('answers a client without contacts with 400 naming the field, not 500', async () => {
    const withoutContacts: Partial<typeof VALID_CLIENT> = { ...VALID_CLIENT };
    delete withoutContacts.contacts;
    await expectInvalid(await admin('POST', '/admin/clients', withoutContacts), 'contacts');
  });

  it('answers text fields carrying a NUL character with 400, not 500', async () => {
    await expectInvalid(
      await admin('POST', '/admin/clients', { ...VALID_CLIENT, name: 'a\u0000b' }),
      'name',
    );
    await expectInvalid(
      await admin('POST', '/admin/clients', { ...VALID_CLIENT, useCase: 'a\u0000b' }),
      'useCase',
    );
    await expectInvalid(
      await admin('POST', '/admin/clients', {
        ...VALID_CLIENT,
        contacts: { primary: 'ops@example.com', secondary: 'x\u0000y' },
      }),
      'contacts.secondary',
    );
    await expectInvalid(
      await admin('POST', '/admin/tenants', { id: 'tenant-b', name: 'B\u0000' }),
      'name',
    );
    expect((await admin('POST', '/admin/clients', VALID_CLIENT)).status).toBe(201);
  });

  it('answers names and contacts that are blank or would show other than written with 400', async () => {
    for (const name of ['   ', '\u00a0', 'evil\u202egnp.exe', 'two\u2028lines', 'iso\u2066late']) {
      await expectInvalid(await admin('POST', '/admin/clients', { ...VALID_CLIENT, name }), 'name');
      await expectInvalid(await admin('POST', '/admin/tenants', { id: 'tenant-c', name }), 'name');
    }
    await expectInvalid(
      await admin('POST', '/admin/clients', {
        ...VALID_CLIENT,
        contacts: { primary: 'ops@example.com', secondary: '+49\u202e 30' },
      }),
      'contacts.secondary',
    );
    // Letters of any script, and right-to-left text itself, stay welcome.
    expect(
      (await admin('POST', '/admin/tenants', { id: 'tenant-c', name: 'مطعم Ünïcode 餐厅' })).status,
    ).toBe(201);
  });

  it('answers 404 for a client id that cannot exist, on every client route', async () => {
    const id = '%00';
    for (const [method, path, body] of [
      ['GET', `/admin/clients/${id}`, undefined],
      ['POST', `/admin/clients/${id}/permissions`, { permissions: ['configs:read'] }],
      ['POST', `/admin/clients/${id}/secret`, {}],
      ['DELETE', `/admin/clients/${id}`, undefined],
    ] as const) {
      const response = await admin(method, path, body);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      expect(await response.json()).toMatchObject({ code: 'auth.client_not_found' });
    }
  });

  it('creates every one of a burst of clients larger than the database pool, none stalled', async () => {
    // Each creation is one transaction: any second connection it took while holding the
    // first would let the burst hold the whole pool and wait for itself until the timeout.
    const small = await startAuthTestService('auth_admin_burst', { DB_POOL_SIZE: '2' });
    try {
      const token = await adminTokenOf(small);
      const post = (path: string, body: unknown) =>
        fetch(`${small.url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'x-api-version': '0',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
      expect((await post('/admin/tenants', { id: 'tenant-a', name: 'A' })).status).toBe(201);
      const statuses = await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const response = await post('/admin/clients', {
            ...VALID_CLIENT,
            name: `burst ${index}`,
          });
          return response.status;
        }),
      );
      // A stalled burst would have waited out the pool's acquire deadline: 503s.
      expect(statuses).toEqual(Array(8).fill(201));
    } finally {
      await small.close();
    }
  });
});
