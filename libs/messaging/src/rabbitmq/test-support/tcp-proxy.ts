import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder between a client and a server (broker or PostgreSQL), so a test can cut
 * the connection the way a network failure or a server restart would, and keep the server
 * "down" for as long as it likes without touching the shared server itself.
 */
export class TcpProxy {
  private constructor(
    private readonly state: { refusing: boolean },
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const sockets = new Set<Socket>();
    const state = { refusing: false };
    const server = createServer((client) => {
      if (state.refusing) {
        client.destroy();
        return;
      }
      const upstream = connect({ host: targetHost, port: targetPort });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new TcpProxy(state, server, sockets, (server.address() as AddressInfo).port);
  }

  /** The broker URL with its host and port replaced by this proxy's. */
  urlFor(brokerUrl: string): string {
    const url = new URL(brokerUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Number of open client + upstream sockets. */
  get connections(): number {
    return this.sockets.size;
  }

  /** Cuts every open connection; new ones are still accepted. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** The server "goes down": every connection is cut and new ones are closed at once. */
  goDown(): void {
    this.state.refusing = true;
    this.dropConnections();
  }

  /** The server "comes back": connections are forwarded again. */
  comeBack(): void {
    this.state.refusing = false;
  }

  /** Cuts every connection and stops accepting new ones. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.dropConnections();
    await closed;
  }
}
