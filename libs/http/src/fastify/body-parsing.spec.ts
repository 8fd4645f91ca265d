import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

describe('request bodies', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp({
      bodyLimitBytes: 64 * 1024,
      rawContentTypes: ['application/javascript'],
    }));
  });
  afterAll(() => app.close());

  it('hands a text/plain body to the handler as a string', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: 'export default () => "olá";',
    });
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({ type: 'string', body: 'export default () => "olá";' });
  });

  it('hands a body of a configured raw content type to the handler as a string', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/javascript' },
      body: 'console.log(1)',
    });
    expect(response.json()).toEqual({ type: 'string', body: 'console.log(1)' });
  });

  it('applies the body limit to raw bodies too', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/javascript' },
      body: 'x'.repeat(64 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(response.json()).toMatchObject({ code: 'request.too_large' });
  });

  it('accepts a JSON body just under the limit', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filler: 'x'.repeat(60 * 1024) }),
    });
    expect(response.status).toBe(201);
  });

  it('parses form-encoded bodies (OAuth token requests)', async () => {
    const response = await call(`${url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=orders%3Aread',
    });
    expect(response.json()).toEqual({
      type: 'object',
      body: { grant_type: 'client_credentials', scope: 'orders:read' },
    });
  });
});
