import type { AddressInfo } from 'node:net';
import { startTestPlatform, type TestPlatform } from '../support/platform';

describe('standalone network exposure', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform('bindings', { env: { HOST: '0.0.0.0' } });
  });
  afterAll(() => platform?.close());

  it('listens on HOST with the gateway only: every service behind it is on loopback', () => {
    const addresses = Object.fromEntries(
      [...platform.services.values()].map((service) => [
        service.name,
        (service.app.getHttpServer().address() as AddressInfo).address,
      ]),
    );
    const { gateway, ...inner } = addresses;
    expect(gateway).toBe('0.0.0.0');
    expect(Object.keys(inner).length).toBeGreaterThanOrEqual(3);
    for (const address of Object.values(inner)) expect(address).toBe('127.0.0.1');
  });
});
