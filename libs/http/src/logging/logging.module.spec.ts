import { runWithContext } from '@comanda/context';
import { waitFor } from '@comanda/testing';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call } from '../testing-fixtures/http-client';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

type LogLine = Record<string, unknown> & { msg?: string; requestId?: string };

describe('JSON logs', () => {
  let app: NestFastifyApplication;
  let url: string;
  const raw: string[] = [];
  const lines = () => raw.map((line) => JSON.parse(line) as LogLine);
  const lineOf = (requestId: string, msg: string) =>
    waitFor(`log line "${msg}" of ${requestId}`, () =>
      lines().find((line) => line.requestId === requestId && line.msg === msg),
    );

  beforeAll(async () => {
    ({ app, url } = await startKitTestApp({
      logDestination: { write: (line: string) => raw.push(line) },
    }));
  });
  afterAll(() => app.close());

  it('logs each request once as JSON with the service and the request id, credentials redacted', async () => {
    await call(`${url}/context`, {
      headers: {
        'x-request-id': 'log-1',
        authorization: 'Bearer eyJsecret',
        cookie: 'session=abc',
      },
    });
    const completed = await lineOf('log-1', 'request completed');
    expect(completed).toMatchObject({
      service: 'kit-test',
      requestId: 'log-1',
      res: { statusCode: 200 },
      req: { method: 'GET', url: '/context' },
    });
    const headers = (completed.req as { headers: Record<string, string> }).headers;
    expect(headers.authorization).toBe('[redacted]');
    expect(headers.cookie).toBe('[redacted]');
    expect(raw.join('\n')).not.toContain('eyJsecret');
  });

  it('puts the request id once on the lines a handler logs', async () => {
    await call(`${url}/context`, { headers: { 'x-request-id': 'log-2' } });
    const handlerLine = await lineOf('log-2', 'reading context');
    expect(handlerLine).toMatchObject({ service: 'kit-test', level: 30 });
    const rawLine = raw.find(
      (line) => line.includes('"reading context"') && line.includes('log-2'),
    );
    expect(rawLine?.match(/"requestId"/g)).toHaveLength(1);
  });

  it('adds the request id of the current context to lines logged outside a request', async () => {
    runWithContext({ requestId: 'message-7' }, () => new Logger('Consumer').log('event consumed'));
    const line = await lineOf('message-7', 'event consumed');
    expect(line.service).toBe('kit-test');
  });

  it('redacts client_secret in logged objects', async () => {
    await call(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'log-3' },
      body: 'grant_type=client_credentials&client_id=pos&client_secret=s3cr3t-value',
    });
    const line = await lineOf('log-3', 'token request');
    expect(line.form).toMatchObject({ client_id: 'pos', client_secret: '[redacted]' });
    expect(raw.join('\n')).not.toContain('s3cr3t-value');
  });

  it('redacts secrets sent in a query string, in the logged URL and query', async () => {
    await call(`${url}/context?client_secret=q-s3cr3t&password=q-pw&access_token=q-tok&page=2`, {
      headers: { 'x-request-id': 'log-q' },
    });
    const completed = await lineOf('log-q', 'request completed');
    expect((completed.req as { url: string }).url).toBe(
      '/context?client_secret=[redacted]&password=[redacted]&access_token=[redacted]&page=2',
    );
    const text = raw.join('\n');
    for (const secret of ['q-s3cr3t', 'q-pw', 'q-tok']) expect(text).not.toContain(secret);
  });

  it('redacts password, secret and token fields of logged objects', async () => {
    runWithContext({ requestId: 'log-fields' }, () =>
      new Logger('Test').log({
        msg: 'fields',
        user: { password: 'p-1', token: 't-1' },
        secret: 's-1',
      }),
    );
    await lineOf('log-fields', 'fields');
    const text = raw.join('\n');
    for (const secret of ['p-1', 't-1', 's-1']) expect(text).not.toContain(`"${secret}"`);
  });

  it('logs an unexpected error with its stack and request id, which the response does not show', async () => {
    const response = await call(`${url}/boom`, { headers: { 'x-request-id': 'log-4' } });
    expect(response.text).not.toContain('secret detail');
    const line = await lineOf('log-4', 'Request failed with an unexpected error');
    expect(line.level).toBe(50);
    expect(line.err).toMatchObject({
      message: 'secret detail',
      stack: expect.stringContaining('Error: secret detail'),
    });
  });

  it('logs a request answered with a 5xx at error level, with its status', async () => {
    await call(`${url}/boom`, { headers: { 'x-request-id': 'log-5' } });
    const line = await lineOf('log-5', 'request errored');
    expect(line).toMatchObject({ level: 50, service: 'kit-test', res: { statusCode: 500 } });
  });

  it('logs an upstream’s 5xx passed on over HTTP as a warning: the upstream’s own line is the error', async () => {
    const response = await call(`${url}/forwarded/failure`, {
      headers: { 'x-request-id': 'log-upstream' },
    });
    expect(response.status).toBe(500);
    const line = await lineOf('log-upstream', 'request failed upstream: its own line says why');
    expect(line).toMatchObject({ level: 40, upstream: 'orders', res: { statusCode: 500 } });
    expect(
      lines().filter((entry) => entry.requestId === 'log-upstream' && Number(entry.level) >= 50),
    ).toEqual([]);
  });

  it('logs a rate limit answered 500 (the partner event receiver) as the refusal it is, not an error', async () => {
    const response = await call(`${url}/notifications/merchants/m1/limited`, {
      headers: { 'x-request-id': 'log-limit' },
    });
    expect(response.status).toBe(500);
    expect(response.json()).toMatchObject({ code: 'request.rate_limited' });
    const line = await lineOf('log-limit', 'request completed');
    expect(line).toMatchObject({ level: 30, res: { statusCode: 500 } });
    expect(
      lines().filter((entry) => entry.requestId === 'log-limit' && Number(entry.level) >= 40),
    ).toEqual([]);
  });

  it.each([
    ['/unavailable', 503, 'log-6'],
    ['/entities/shop/unavailable', 500, 'log-7'],
  ])(
    'logs a request that failed for the database being away (%s, %d) as one warning without a stack, not an error',
    async (path, status, requestId) => {
      const response = await call(`${url}${path}`, { headers: { 'x-request-id': requestId } });
      expect(response.status).toBe(status);
      const warning = await lineOf(requestId, 'Request failed: a dependency cannot be reached');
      expect(warning).toMatchObject({
        level: 40,
        status,
        cause: 'connect ECONNREFUSED 127.0.0.1:5432',
      });
      expect(warning.err).toBeUndefined();
      const requestLine = await lineOf(requestId, 'request failed: a dependency is away');
      expect(requestLine).toMatchObject({ level: 40, res: { statusCode: status } });
      expect(lines().filter((line) => line.requestId === requestId && line.level === 50)).toEqual(
        [],
      );
    },
  );

  it("keeps the stack Nest's own exception handlers pass as a second argument", async () => {
    const stack = 'Error: from a handler\n    at somewhere (file.ts:1:1)';
    runWithContext({ requestId: 'log-stack' }, () =>
      new Logger('ExceptionsHandler').error('from a handler', stack),
    );
    const line = await lineOf('log-stack', 'from a handler');
    expect(line).toMatchObject({
      level: 50,
      context: 'ExceptionsHandler',
      err: { message: 'from a handler', stack },
    });
  });

  it('does not log health probes', async () => {
    await call(`${url}/health/live`, { apiVersion: null, headers: { 'x-request-id': 'probe-1' } });
    await call(`${url}/context`, { headers: { 'x-request-id': 'after-probe' } });
    await lineOf('after-probe', 'request completed');
    expect(lines().filter((line) => line.requestId === 'probe-1')).toEqual([]);
  });
});
