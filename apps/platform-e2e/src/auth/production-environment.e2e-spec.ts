import { provisionClient, requestToken } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { AUTH_KEYS_ENV, get } from './auth-test-kit';

describe('auth: a production deployment', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_auth_production', {
      env: { ...AUTH_KEYS_ENV, COMANDA_ENVIRONMENT: 'production' },
    });
  }, 120_000);
  afterAll(() => platform?.close());

  it('gives no token to a test-environment client', async () => {
    const testClient = await provisionClient(platform, {
      tenantId: 'prod-a',
      permissions: ['connections:read'],
      environment: 'test',
    });
    const response = await requestToken(platform.baseUrl, 'prod-a', testClient);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringContaining('test environment'),
    });
  });

  it('issues production tokens to a production client, and they open its endpoints', async () => {
    const client = await provisionClient(platform, {
      tenantId: 'prod-a',
      permissions: ['connections:read'],
      environment: 'production',
    });
    const token = await client.token();
    expect((await get(platform, '/entities/prod/connections', token)).status).toBe(200);
  });
});
