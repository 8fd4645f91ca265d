import { connect } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startKitTestApp } from '../testing-fixtures/kit-test.app';

/** Everything the server sends on one connection for `request`, until it closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

interface RawAnswer {
  statusLine: string;
  headers: Map<string, string>;
  body: Record<string, unknown>;
  answers: number;
}

function parse(raw: string): RawAnswer {
  const [head, body] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()] as [string, string];
    }),
  );
  return {
    statusLine,
    headers,
    body: JSON.parse(body) as Record<string, unknown>,
    answers: raw.split('HTTP/1.1 ').length - 1,
  };
}

describe('requests Node refuses before any route sees them', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    let url: string;
    ({ app, url } = await startKitTestApp({
      timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    }));
    port = Number(new URL(url).port);
  });

  afterAll(() => app.close());

  function expectProblem(answer: RawAnswer, status: number, code: string): void {
    expect(answer.answers).toBe(1);
    expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(answer.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.body).toMatchObject({ status, code, requestId: expect.any(String) });
    expect(answer.headers.get('x-request-id')).toBe(answer.body.requestId);
    expect(answer.headers.get('content-length')).toBe(
      String(Buffer.byteLength(JSON.stringify(answer.body))),
    );
  }

  it('answers headers larger than the server reads with a 431 problem', async () => {
    const raw = await exchange(
      port,
      `GET /kitchen HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectProblem(parse(raw), 431, 'request.headers_too_large');
  });

  it('answers a request that is not HTTP with a 400 problem', async () => {
    const raw = await exchange(port, 'GET /kitchen HTTP/1.1\r\nHost x\r\n\r\n');
    expectProblem(parse(raw), 400, 'request.bad_request');
  });

  it('answers an Expect other than 100-continue with a 417 problem, then closes', async () => {
    const raw = await exchange(
      port,
      'POST /kitchen HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}',
    );
    expectProblem(parse(raw), 417, 'request.expectation_failed');
  });

  it('answers a CONNECT with a 501 problem, then closes', async () => {
    const raw = await exchange(
      port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    expectProblem(parse(raw), 501, 'request.not_implemented');
    expect(parse(raw).body).toMatchObject({ detail: expect.stringContaining('CONNECT') });
  });

  it('answers an HTTP/1.1 request without Host with a 400 problem, then closes', async () => {
    const raw = await exchange(port, 'GET /kitchen HTTP/1.1\r\nX-Api-Version: 0\r\n\r\n');
    expectProblem(parse(raw), 400, 'request.host_missing');
  });

  it('answers a request of another HTTP major version than 1 with a 505 problem, then closes', async () => {
    for (const request of [
      'GET /health/live\r\n\r\n',
      'GET /health/live HTTP/2.0\r\nHost: x\r\n\r\n',
    ]) {
      const raw = await exchange(port, request);
      expectProblem(parse(raw), 505, 'request.http_version_not_supported');
      expect(parse(raw).headers.get('connection')).toBe('close');
    }
    // HTTP/1.0 is served (without Host, as it may be sent).
    const old = parse(await exchange(port, 'GET /health/live HTTP/1.0\r\n\r\n'));
    expect(old.statusLine).toMatch(/^HTTP\/1.1 200 /);
  });

  it('answers a request with two Host lines with a 400 problem, then closes (RFC 9112 §3.2)', async () => {
    for (const hosts of ['Host: x\r\nHost: y', 'Host: x\r\nHOST: x']) {
      const raw = await exchange(port, `GET /health/live HTTP/1.1\r\n${hosts}\r\n\r\n`);
      expectProblem(parse(raw), 400, 'request.host_repeated');
      expect(parse(raw).headers.get('connection')).toBe('close');
    }
  });

  it('routes a request target in absolute form as its path (RFC 9112 §3.2.2)', async () => {
    const raw = await exchange(
      port,
      'GET http://kit.example/health/live HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n',
    );
    const answer = parse(raw);
    expect(answer.statusLine).toMatch(/^HTTP\/1.1 200 /);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  it('answers a body that stops arriving with one 408 problem, then closes', async () => {
    const raw = await exchange(
      port,
      'POST /orders HTTP/1.1\r\nHost: x\r\nX-Api-Version: 0\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lines":',
    );
    expectProblem(parse(raw), 408, 'request.timeout');
  });
});
