import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '@comanda/outbound';

export interface SunkEvent {
  path: string;
  body: Record<string, unknown>;
  signatureValid: boolean;
}

/** A notification receiver for tests: records every event, answers `status()` (200 by default). */
export class EventSink {
  readonly events: SunkEvent[] = [];
  status: (event: SunkEvent) => number = () => 200;
  private server?: Server;
  port = 0;

  constructor(private readonly secret: string) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        const event: SunkEvent = {
          path: request.url ?? '',
          body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
          signatureValid: verifySignature(
            request.headers['comanda-signature'] as string | undefined,
            raw,
            this.secret,
          ).valid,
        };
        this.events.push(event);
        response.writeHead(this.status(event)).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  ofPayment(paymentId: string): SunkEvent[] {
    return this.events.filter((event) => event.body['paymentId'] === paymentId);
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
