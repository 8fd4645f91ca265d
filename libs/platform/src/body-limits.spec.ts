import { DEFAULT_BODY_LIMIT_BYTES, SMALLER_SERVICE_BODY_LIMITS } from '@comanda/contracts';
import { PLATFORM_SERVICES } from './services';

describe('body limits along the path', () => {
  it("lists every service with a smaller limit than the gateway's, with that limit", () => {
    // The gateway applies SMALLER_SERVICE_BODY_LIMITS to the paths each service owns: a
    // service missing there gets bodies it refuses mid-stream, and the caller a 502.
    const smaller = PLATFORM_SERVICES.filter(
      (service) => (service.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES) < DEFAULT_BODY_LIMIT_BYTES,
    ).map((service) => [service.name, service.bodyLimitBytes] as const);
    expect(smaller.length).toBeGreaterThan(0);
    expect(new Map(smaller)).toEqual(SMALLER_SERVICE_BODY_LIMITS);
  });
});
