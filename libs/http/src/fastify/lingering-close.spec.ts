import fastify, { type FastifyInstance } from 'fastify';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { closeAfterAnswer, LINGER_MS } from './lingering-close';

const BODY_BYTES = 1_500_000;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

interface RefusingServer {
  app: FastifyInstance;
  port: number;
  /** Resolves when the server has closed the socket of its next connection. */
  nextConnectionClosed(): Promise<void>;
}

/** A server that refuses every request with a body from its headers, as the gateway does. */
async function refusingServer(linger: boolean): Promise<RefusingServer> {
  const app = fastify();
  // One promise per connection, in the order they come, settled when the server closes it.
  const closings: Array<() => void> = [];
  const closes = Array.from(
    { length: 4 },
    (_, index) => new Promise<void>((resolve) => (closings[index] = resolve)),
  );
  let accepted = 0;
  app.server.on('connection', (socket: Socket) => {
    socket.once('close', closings[accepted++]);
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (Number(request.headers['content-length'] ?? 0) === 0) return done();
    if (linger) closeAfterAnswer(request, reply);
    else reply.header('connection', 'close');
    void reply.code(413).send({ status: 413 });
  });
  app.post('/', () => ({ read: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  let taken = 0;
  return {
    app,
    port: (app.server.address() as AddressInfo).port,
    nextConnectionClosed: () => closes[taken++],
  };
}

interface Exchange {
  answer: string;
  /** The first error the caller met writing its body, if any. */
  failed?: string;
}

/**
 * Sends the headers of a large POST, waits until the whole answer has arrived, then sends
 * the body in full (a caller that writes its body before it reads, as most clients do).
 */
async function sendBodyAfterAnswer(port: number, endWhenSent: boolean): Promise<Exchange> {
  // A caller that keeps its side open after the server's FIN, as HTTP expects of it.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let answer = '';
  let failed: string | undefined;
  socket.on('error', (error: NodeJS.ErrnoException) => (failed ??= error.code ?? error.message));
  const answered = new Promise<void>((resolve) =>
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.includes('{"status":413}')) resolve();
    }),
  );
  socket.write(
    `POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
  );
  await answered;
  for (let sent = 0; sent < BODY_BYTES && !failed; sent += CHUNK.length) {
    await write(socket, CHUNK.subarray(0, Math.min(CHUNK.length, BODY_BYTES - sent)));
  }
  if (endWhenSent && !failed) socket.end();
  return { answer, failed };
}

function write(socket: Socket, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(chunk, () => resolve());
  });
}

describe('closeAfterAnswer', () => {
  const apps: FastifyInstance[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  async function server(linger: boolean): Promise<RefusingServer> {
    const started = await refusingServer(linger);
    apps.push(started.app);
    return started;
  }

  it('lets a refused caller finish sending its body without a reset, then closes', async () => {
    const { port, nextConnectionClosed } = await server(true);
    const closed = nextConnectionClosed();
    const exchange = await sendBodyAfterAnswer(port, true);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.failed).toBeUndefined();
    await closed;
  });

  it('closes the connection of a caller that never ends its side after a short while', async () => {
    const { port, nextConnectionClosed } = await server(true);
    const closed = nextConnectionClosed();
    const started = Date.now();
    const exchange = await sendBodyAfterAnswer(port, false);
    expect(exchange.failed).toBeUndefined();
    await closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(Date.now() - started).toBeLessThan(LINGER_MS + 1_000);
  });

  it('is needed: without it the same caller meets a closed socket while it sends', async () => {
    const { port } = await server(false);
    const exchange = await sendBodyAfterAnswer(port, true);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(['EPIPE', 'ECONNRESET']).toContain(exchange.failed);
  });

  it('keeps serving other connections meanwhile', async () => {
    const { port, nextConnectionClosed } = await server(true);
    const closed = nextConnectionClosed();
    const lingering = sendBodyAfterAnswer(port, false);
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' });
    expect(await response.json()).toEqual({ read: true });
    expect((await lingering).failed).toBeUndefined();
    await closed;
  });
});
