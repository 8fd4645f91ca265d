import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { markForwardedConnection } from '@comanda/http';
import { InProcessSocket } from './in-process-socket';

interface Listener {
  server: Server;
  port: number;
  /** The scope the service started in: its connections are served in it (log lines name it). */
  scope: AsyncResource;
}

const listeners = new Map<string, Listener>();

/**
 * Makes a service's HTTP server reachable in process under its own origin
 * (`http://127.0.0.1:<port>`), for a caller in the same process (the standalone gateway,
 * ADR 0035). Call it in the service's scope.
 */
export function registerLocalListener(origin: string, server: Server, port: number): () => void {
  const listener: Listener = {
    server,
    port,
    scope: new AsyncResource('comanda.local-listener'),
  };
  listeners.set(origin, listener);
  return () => {
    if (listeners.get(origin) === listener) listeners.delete(origin);
  };
}

/**
 * A new connection to the server listening in this process at `origin`, or undefined when no
 * service of this process listens there (then the caller connects over the network). The
 * server takes the connection as it takes a TCP one: the same HTTP parsing, limits, hooks
 * and answers.
 */
export function connectLocally(origin: string): Duplex | undefined {
  const listener = listeners.get(origin);
  if (!listener || !listener.server.listening) return undefined;
  const [client, server] = InProcessSocket.pair(listener.port, listener.scope);
  // The caller (the standalone gateway) writes the request line; the service writes none.
  markForwardedConnection(server);
  listener.scope.runInAsyncScope(() => listener.server.emit('connection', server));
  return client;
}

/**
 * The request handler of the server at `origin` in this process, or undefined when none
 * listens there: it serves a request the caller received itself, on the caller's own
 * request and response (no second HTTP exchange), in the service's scope (ADR 0036).
 */
export function localRequestHandler(
  origin: string,
): ((request: IncomingMessage, response: ServerResponse) => void) | undefined {
  const listener = listeners.get(origin);
  if (!listener || !listener.server.listening) return undefined;
  return (request, response) =>
    listener.scope.runInAsyncScope(() => listener.server.emit('request', request, response));
}
