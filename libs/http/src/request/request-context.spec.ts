import { parseTraceparent } from '@comanda/context';
import { request } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call, postJson } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request id and request context', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp());
  });
  afterAll(() => app.close());

  it('keeps a sane X-Request-Id, echoes it and exposes it in the handler context', async () => {
    const response = await call(`${url}/context`, {
      headers: { 'x-request-id': 'pos-42:retry.1_A-b' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('pos-42:retry.1_A-b');
    expect(response.json()).toMatchObject({ requestId: 'pos-42:retry.1_A-b' });
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'hello world'],
    ['with a newline-like payload', 'abc%0d%0aSet-Cookie'],
    ['with quotes', '"quoted"'],
  ])('replaces an X-Request-Id %s with a new UUID', async (_case, incoming) => {
    const response = await call(`${url}/context`, { headers: { 'x-request-id': incoming } });
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(UUID);
    expect(response.json()).toMatchObject({ requestId });
  });

  it('makes a new id for each request without one', async () => {
    const first = await call(`${url}/context`);
    const second = await call(`${url}/context`);
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(first.json()).toMatchObject({ requestId: first.headers.get('x-request-id') });
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('keeps the context through guards and awaits of a request with a JSON body', async () => {
    const response = await postJson(
      `${url}/context`,
      { any: 'thing' },
      { 'x-request-id': 'with-body-1' },
    );
    expect(response.status).toBe(201);
    expect(response.json()).toMatchObject({ requestId: 'with-body-1' });
  });

  it('keeps the context when the body arrives in pieces after the headers', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const outgoing = request(
        `${url}/context`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-version': '0',
            'x-request-id': 'chunked-1',
          },
        },
        (response) => {
          let received = '';
          response.on('data', (chunk: Buffer) => (received += chunk.toString()));
          response.on('end', () => resolve(received));
        },
      );
      outgoing.on('error', reject);
      outgoing.flushHeaders();
      outgoing.write('{"a":');
      // A later timer tick, so the rest of the body is a separate read on the server.
      setTimeout(() => outgoing.end('1}'), 20);
    });
    expect(JSON.parse(text)).toMatchObject({ requestId: 'chunked-1' });
  });

  it('exposes the context to Nest middleware', async () => {
    const response = await call(`${url}/context`, { headers: { 'x-request-id': 'middleware-1' } });
    expect(response.headers.get('x-context-in-middleware')).toBe('middleware-1');
  });

  it('does not mix up the contexts of concurrent requests', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `concurrent-${i}`);
    const responses = await Promise.all(
      ids.map((id, i) =>
        i % 2
          ? postJson(`${url}/context`, { i }, { 'x-request-id': id })
          : call(`${url}/context`, { headers: { 'x-request-id': id } }),
      ),
    );
    expect(responses.map((response) => response.json().requestId)).toEqual(ids);
  });

  it('continues the caller trace with a child span in the context', async () => {
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const context = (await call(`${url}/context`, { headers: { traceparent: incoming } })).json<{
      traceparent: string;
    }>();
    expect(parseTraceparent(context.traceparent)).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(context.traceparent).not.toBe(incoming);
  });

  it('starts a trace when the caller sends none', async () => {
    const context = (await call(`${url}/context`)).json<{ traceparent: string }>();
    expect(parseTraceparent(context.traceparent)).toBeDefined();
  });

  it('echoes the request id on error responses, including those raised before routing', async () => {
    const missingVersion = await call(`${url}/nowhere`, {
      apiVersion: null,
      headers: { 'x-request-id': 'err-1' },
    });
    expect(missingVersion.headers.get('x-request-id')).toBe('err-1');
    expect(missingVersion.json()).toMatchObject({ requestId: 'err-1' });

    const malformed = await call(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'err-2' },
      body: '{',
    });
    expect(malformed.headers.get('x-request-id')).toBe('err-2');
    expect(malformed.json()).toMatchObject({ requestId: 'err-2' });

    const crash = await call(`${url}/boom`, { headers: { 'x-request-id': 'err-3' } });
    expect(crash.headers.get('x-request-id')).toBe('err-3');
    expect(crash.json()).toMatchObject({ requestId: 'err-3' });
  });
});
