import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long a client may take over each part of an exchange before its socket is closed. */
export interface ServerTimeouts {
  /** From the first byte of a request to the end of its headers (slow-header clients). */
  headersTimeoutMs: number;
  /** From the first byte to the end of the body (slow-body clients); at least the above. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
};

/**
 * Node's options for a server with these timeouts. Node checks the header and request
 * deadlines on an interval (30 s by default): a check every second keeps a slow client from
 * outliving its deadline by much.
 */
export function serverTimeoutOptions(timeouts: ServerTimeouts) {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: Math.max(timeouts.requestTimeoutMs, timeouts.headersTimeoutMs),
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
  };
}

/**
 * At most `limit` open connections per peer address: past it a new connection is closed at
 * once, so one address cannot hold every socket of the server. The peer is the socket's own
 * address (the load balancer, behind one): only a public listener should set a limit.
 */
export function capConnectionsPerAddress(server: Server, limit: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
