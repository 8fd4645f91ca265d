import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterConfig } from './config';
import type { Logger, OrderPlacer, ReadyEvent } from './order-placer';

const MAX_BODY_BYTES = 256 * 1024;
const TOLERANCE_SECONDS = 300;

/**
 * Receives deliveries of a webhook subscription: checks `Comanda-Signature` against the raw
 * body, answers 202 at once (Comanda waits 10 s at most) and places the order afterwards.
 * A delivery seen before (same event id) is answered 202 again and not placed twice.
 */
export class WebhookSource {
  private server?: Server;
  private readonly seen = new Set<string>();

  constructor(
    private readonly settings: NonNullable<AdapterConfig['webhook']>,
    private readonly placer: OrderPlacer,
    private readonly log: Logger,
  ) {}

  /** Resolves with the port it listens on. */
  async start(): Promise<number> {
    const server = createServer((request, response) => void this.receive(request, response));
    this.server = server;
    await new Promise<void>((resolve) =>
      server.listen(this.settings.port, this.settings.host, resolve),
    );
    const { port } = server.address() as AddressInfo;
    this.log.info(`webhook endpoint on port ${port}, path ${this.settings.path}`);
    return port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'POST' || path !== this.settings.path) {
      response.writeHead(404).end();
      return;
    }
    const body = await readBody(request);
    if (body === undefined) {
      response.writeHead(413).end();
      return;
    }
    const signature = request.headers['comanda-signature'];
    if (
      !verify(typeof signature === 'string' ? signature : undefined, body, this.settings.secret)
    ) {
      response.writeHead(401).end();
      return;
    }
    let event: ReadyEvent;
    try {
      event = JSON.parse(body.toString('utf8')) as ReadyEvent;
    } catch {
      response.writeHead(400).end();
      return;
    }
    response.writeHead(202).end();
    if (this.seen.has(event.id)) return;
    this.remember(event.id);
    try {
      await this.placer.handle(event);
    } catch (error) {
      // A real adapter stores the event before answering and retries from its own store.
      this.log.warn(`event ${event.id} failed: ${(error as Error).message}`);
      this.seen.delete(event.id);
    }
  }

  private remember(eventId: string): void {
    this.seen.add(eventId);
    if (this.seen.size > 10_000) this.seen.delete(this.seen.values().next().value as string);
  }
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * `Comanda-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>`:
 * a `t` within 5 minutes and one `v1` equal to the HMAC of the bytes received.
 */
export function verify(
  header: string | undefined,
  body: Buffer,
  secret: string,
  now = Date.now(),
): boolean {
  if (!header) return false;
  const fields = header.split(',').map((part) => part.trim().split('='));
  const t = fields.find(([key]) => key === 't')?.[1];
  if (!t || !/^\d+$/.test(t) || Math.abs(now / 1000 - Number(t)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return fields.some(
    ([key, value]) =>
      key === 'v1' &&
      /^[0-9a-f]{64}$/i.test(value ?? '') &&
      timingSafeEqual(Buffer.from(value!, 'hex'), expected),
  );
}
