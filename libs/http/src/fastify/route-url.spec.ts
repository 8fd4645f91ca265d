import fastify, { type FastifyInstance } from 'fastify';
import { routeUrl } from './route-url';

describe('routeUrl', () => {
  let app: FastifyInstance;
  const seen: Array<{ copy: string | undefined; direct: string | undefined }> = [];

  beforeAll(async () => {
    app = fastify();
    app.addHook('onRequest', (request, _reply, done) => {
      seen.push({ copy: request.routeOptions.url, direct: routeUrl(request) });
      done();
    });
    app.get('/entities/:entity/configs', async () => ({}));
    app.get('/health/live', async () => ({}));
    await app.ready();
  });
  afterAll(() => app.close());

  it.each([
    ['/entities/bench/configs', '/entities/:entity/configs'],
    ['/entities/%62ench/configs?x=1', '/entities/:entity/configs'],
    ['/health/live', '/health/live'],
    ['/nowhere', undefined],
  ])('%s matched %s, as routeOptions.url says', async (url, pattern) => {
    seen.length = 0;
    await app.inject({ method: 'GET', url });
    expect(seen).toEqual([{ copy: pattern, direct: pattern }]);
  });
});
