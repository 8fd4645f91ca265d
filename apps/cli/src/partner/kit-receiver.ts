import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature, type SignatureCheck } from '@comanda/outbound';

/** One POST the partner made to the kit's receiver, as received. */
export interface ReceivedEvent {
  at: number;
  path: string;
  rawBody: string;
  signature: SignatureCheck;
  /** The parsed body when it is a JSON object. */
  body?: Record<string, unknown>;
  /** What the receiver answered. */
  answered: number;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * The notification receiver the conformance kit hosts: it verifies each event's
 * `Comanda-Signature` with the merchant secret over the raw bytes, as Comanda does, answers
 * 200 to a well-signed JSON event and 401/400 otherwise, and keeps everything it saw.
 */
export class KitReceiver {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    /** Every POST received, in order. */
    readonly events: ReceivedEvent[],
  ) {}

  static async start(secret: string, host: string, port: number): Promise<KitReceiver> {
    const events: ReceivedEvent[] = [];
    const server = createServer((request, response) => {
      void readBody(request).then((raw) => {
        const received: ReceivedEvent = {
          at: Date.now(),
          path: (request.url ?? '').split('?')[0],
          rawBody: raw?.toString('utf8') ?? '',
          signature: verifySignature(
            headerValue(request.headers['comanda-signature']),
            raw ?? Buffer.alloc(0),
            secret,
          ),
          answered: 200,
        };
        try {
          const parsed: unknown = JSON.parse(received.rawBody);
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
            received.body = parsed as Record<string, unknown>;
          }
        } catch {
          // Recorded without a body: the row that expects the event says so.
        }
        if (request.method !== 'POST' || raw === undefined) received.answered = 400;
        else if (!received.signature.valid) received.answered = 401;
        else if (!received.body) received.answered = 400;
        events.push(received);
        response.writeHead(received.answered, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ received: received.answered === 200 }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return new KitReceiver(server, (server.address() as AddressInfo).port, events);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', () => resolve(undefined));
  });
}
