import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

describe('X-Api-Version check', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp());
  });
  afterAll(() => app.close());

  it('answers 400 api_version.missing without the header', async () => {
    const response = await call(`${url}/context`, { apiVersion: null });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ code: 'api_version.missing', status: 400 });
  });

  it.each(['1', '0.1', 'v0', ''])(
    'answers 400 api_version.unsupported for version "%s"',
    async (version) => {
      const response = await call(`${url}/context`, { apiVersion: version });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: version === '' ? 'api_version.missing' : 'api_version.unsupported',
      });
    },
  );

  it('checks unknown routes the same way before answering 404', async () => {
    expect((await call(`${url}/nowhere`, { apiVersion: null })).json()).toMatchObject({
      code: 'api_version.missing',
    });
    expect((await call(`${url}/nowhere`)).json()).toMatchObject({ code: 'route.not_found' });
  });

  it('checks before reading the body, so an oversized body without a version gets the version error', async () => {
    const response = await call(`${url}/orders`, {
      method: 'POST',
      apiVersion: null,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(response.json()).toMatchObject({ code: 'api_version.missing' });
  });

  it('lets /health/ and the configured exempt paths through without the header', async () => {
    const health = await call(`${url}/health/live`, { apiVersion: null });
    expect(health.status).toBe(200);
    const exempt = await call(`${url}/public/ping`, { apiVersion: 'whatever' });
    expect(exempt.status).toBe(200);
    expect(exempt.json()).toEqual({ pong: true });
  });

  it('accepts version 0', async () => {
    expect((await call(`${url}/public/ping`, { apiVersion: '0' })).status).toBe(200);
    expect((await call(`${url}/context`, { apiVersion: '0' })).status).toBe(200);
  });
});
