import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { routeEveryMethod } from '@comanda/http';
import { registerLocalListener } from '@comanda/runtime';

/** What a test upstream saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyLength: number;
  bodySha256: string;
}

export interface TestUpstream {
  name: string;
  url: string;
  seen: SeenRequest[];
  /** Connections its HTTP server accepted (none for requests handed over in process). */
  connections(): number;
  /** Whether its `/health/ready` answers 200 (true at first) or 503. */
  setReady(ready: boolean): void;
  /** Requests to `/hang` that were never answered; released on close. */
  close(): Promise<void>;
}

/**
 * A small real HTTP service standing in for one Comanda service: it records every request
 * (body as raw bytes, whatever the content type), answers with what it saw, sets a few
 * hop-by-hop response headers the gateway must drop, serves `/health/ready` and an OpenAPI
 * document of its own, and leaves `/…/hang` unanswered to provoke gateway timeouts.
 */
export async function startTestUpstream(
  name: string,
  ownedPaths: string[],
  /** `inProcess`: also reachable in this process, as a standalone service is (ADR 0035/0036). */
  options: { inProcess?: boolean } = {},
): Promise<TestUpstream> {
  const seen: SeenRequest[] = [];
  const hanging: FastifyReply[] = [];
  const app: FastifyInstance = fastify({ bodyLimit: 16 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  let ready = true;
  app.get('/health/ready', async (_request, reply) =>
    ready ? { status: 'ok' } : reply.status(503).send({ status: 'error' }),
  );
  app.get('/openapi.json', async () => ({
    openapi: '3.0.0',
    info: { title: name, version: '0' },
    paths: Object.fromEntries(
      [...ownedPaths, '/health/ready'].map((path) => [
        path,
        { get: { operationId: `${name}:${path}`, tags: [name] } },
      ]),
    ),
    components: { schemas: { [`${name}Thing`]: { type: 'object' } } },
    tags: [{ name }],
  }));
  // Echoes every method Node reads, as a service's router hears any (and answers 405 itself).
  routeEveryMethod(app);
  app.all('/*', async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const record: SeenRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      bodyLength: body.length,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    };
    seen.push(record);
    if (request.url.split('?')[0].endsWith('/hang')) {
      hanging.push(reply);
      return reply;
    }
    const status = Number(request.headers['x-test-status'] ?? 200);
    return reply
      .status(status)
      .header('x-upstream', name)
      .header('set-cookie', ['a=1', 'b=2'])
      .header('keep-alive', 'timeout=5')
      .header('connection', 'keep-alive, x-upstream-hop')
      .header('x-upstream-hop', 'secret')
      .header('content-type', 'application/json')
      .send(JSON.stringify({ upstream: name, ...record }));
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  let connections = 0;
  app.server.on('connection', () => (connections += 1));
  const unregister = options.inProcess ? registerLocalListener(url, app.server, port) : undefined;
  return {
    name,
    url,
    seen,
    connections: () => connections,
    setReady: (value) => {
      ready = value;
    },
    close: async () => {
      unregister?.();
      for (const reply of hanging) reply.raw.destroy();
      await app.close();
    },
  };
}

/** A URL on which nothing listens: a port that was free a moment ago. */
export async function unusedUrl(): Promise<string> {
  const probe = fastify();
  await probe.listen({ port: 0, host: '127.0.0.1' });
  const address = probe.server.address();
  await probe.close();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 1}`;
}
