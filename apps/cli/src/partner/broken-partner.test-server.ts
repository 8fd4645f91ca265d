import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signBody } from '@comanda/outbound';

/**
 * A partner that gets the contract wrong on purpose: it answers 202 to anything (malformed
 * JSON and missing fields too), runs a retried operation again, reports every operation as
 * succeeded (capture on an annulled transaction too) and signs with the wrong secret.
 */
export async function startBrokenPartner(
  notificationsUrl: () => string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(202).end();
      let operation: Record<string, unknown>;
      try {
        operation = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof operation['operationType'] !== 'string') return;
      const body = JSON.stringify({
        eventId: `broken-${Math.random()}`,
        type: `${operation['operationType']}_succeeded`,
        paymentId: operation['paymentId'],
        operationId: operation['operationId'],
        occurredAt: new Date().toISOString(),
      });
      setTimeout(() => {
        void fetch(`${notificationsUrl()}/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'comanda-signature': signBody('not-the-merchant-secret', body),
          },
          body,
        }).catch(() => undefined);
      }, 10);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
