import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { placeBasket, seedStore, type OrdersTenant } from './orders-api';

/** A store with a menu and a checked-out basket without payment: an order ready to be placed. */
export async function readyOrder(
  tenant: OrdersTenant,
): Promise<{ orderId: string; storeId: string }> {
  const storeId = await seedStore(tenant);
  const { orderId } = await placeBasket(tenant, storeId);
  return { orderId, storeId };
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook endpoint on 127.0.0.1 answering `statuses` in turn (the last one repeats). */
export async function startWebhookEndpoint(statuses: number[]): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses[Math.min(received.length, statuses.length) - 1] ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
