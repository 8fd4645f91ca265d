import { Agent, request } from 'node:http';
import { connect } from 'node:net';

export interface AttackerResponse {
  status: number;
  arrayBuffer(): Promise<void>;
}

/**
 * Requests from another loopback address (127.0.0.2, ...): an attacker's machine, as the
 * platform sees it, so its rate limits and lockouts are not the real client's (127.0.0.1).
 */
export function attackerFetch(localAddress: string) {
  const agent = new Agent({ keepAlive: true, localAddress } as ConstructorParameters<
    typeof Agent
  >[0]);
  const call = (
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<AttackerResponse>((resolve, reject) => {
      const outgoing = request(
        url,
        { method: init.method ?? 'GET', headers: init.headers, agent, localAddress },
        (response) => {
          response.resume();
          response.once('end', () =>
            resolve({ status: response.statusCode ?? 0, arrayBuffer: async () => undefined }),
          );
          response.once('error', reject);
        },
      );
      outgoing.once('error', reject);
      outgoing.end(init.body);
    });
  return Object.assign(call, { close: async () => agent.destroy() });
}

/** A JWT with any header and payload and a meaningless signature. */
export function forgedJwt(header: object, payload: object, signature = 'c2lnbmF0dXJl'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

export function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

/**
 * Sends a request's headers announcing a body of `length` bytes, and no byte of it; gives
 * what the server answered within `waitMs` ('' when it is still waiting for the body).
 */
export function headersOnly(
  url: string,
  init: { method: string; headers: Record<string, string>; length: number; waitMs?: number },
): Promise<string> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise<string>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(done, init.waitMs ?? 3000);
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      // The whole answer is there once its body (after the blank line) arrived.
      const [head, body = ''] = answer.split('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (body.length >= length) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    const headers = Object.entries({ ...init.headers, 'content-length': String(init.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`${init.method} ${pathname}${search} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
  });
}
