import rateLimit from '@fastify/rate-limit';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

describe('errors of Fastify plugins', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp({
      beforeListen: async (nest) => {
        await nest.register(rateLimit, { max: 1, timeWindow: 60_000 });
      },
    }));
  });
  afterAll(() => app.close());

  it('answers 429 request.rate_limited as a problem, keeping the plugin headers', async () => {
    expect((await call(`${url}/public/ping`)).status).toBe(200);
    const limited = await call(`${url}/public/ping`, { headers: { 'x-request-id': 'limited-1' } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.json()).toMatchObject({
      status: 429,
      code: 'request.rate_limited',
      type: 'https://comanda.dev/problems/request.rate_limited',
      requestId: 'limited-1',
    });
  });
});
