import { Agent, request } from 'node:http';

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
