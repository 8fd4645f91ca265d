import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

interface Link {
  client: Socket;
  upstream: Socket;
  /** The client sent the armed commit trap's pattern: its next COMMIT loses its answer. */
  trapped?: boolean;
  /** Piped both ways (a second pipe would send every byte twice). */
  flowing?: boolean;
  /** The server's answers are held back (`holdAnswersAfter`) until `resume`. */
  answersHeld?: boolean;
}

interface ProxyState {
  refusing: boolean;
  stalled: boolean;
  /** Armed by `loseCommitAnswer`: the pattern that picks the connection. */
  commitTrap?: string;
  /** Armed by `holdAnswersAfter`: the pattern that picks the connection. */
  answerHold?: string;
}

/** How long the server gets to carry out the COMMIT before the connection breaks. */
const COMMIT_GRACE_MS = 100;

/**
 * A TCP forwarder between a client and a server (broker or PostgreSQL), so a test can cut
 * the connection the way a network failure or a server restart would, keep the server
 * "down" for as long as it likes, or let it hang without answering, all without touching
 * the shared server itself.
 */
export class TcpProxy {
  private constructor(
    private readonly state: ProxyState,
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    private readonly links: Set<Link>,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const sockets = new Set<Socket>();
    const links = new Set<Link>();
    const state: ProxyState = { refusing: false, stalled: false };
    const server = createServer((client) => {
      if (state.refusing) {
        client.destroy();
        return;
      }
      const upstream = connect({ host: targetHost, port: targetPort });
      const link: Link = { client, upstream };
      links.add(link);
      client.on('data', (chunk: Buffer) => {
        springCommitTrap(state, link, chunk);
        springAnswerHold(state, link, chunk);
      });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => {
          sockets.delete(socket);
          links.delete(link);
        });
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      // While stalled, a new connection is taken but nothing flows until `resume`.
      if (state.stalled) pause(link);
      else flow(link);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new TcpProxy(state, server, sockets, links, (server.address() as AddressInfo).port);
  }

  /** The URL (broker or database) with its host and port replaced by this proxy's. */
  urlFor(serverUrl: string): string {
    const url = new URL(serverUrl);
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

  /**
   * The server hangs: connections stay open (new ones are accepted) but nothing goes either
   * way, so every query waits, as behind a stalled network or a frozen server. What was sent
   * meanwhile is kept and delivered on `resume`.
   */
  stall(): void {
    this.state.stalled = true;
    for (const link of this.links) pause(link);
  }

  /** The server answers again: everything held back flows on. */
  resume(): void {
    this.state.stalled = false;
    this.state.answerHold = undefined;
    for (const link of this.links) {
      // A held link is taken down both ways first, so that `flow` pipes each way once.
      if (link.answersHeld) {
        link.answersHeld = false;
        pause(link);
      }
      flow(link);
    }
  }

  /**
   * The server's answers stop coming back: on the first connection whose client sends
   * `pattern` (an id the statement carries), that statement reaches the server, which runs
   * it, and no answer gets back to the client until `resume`, as when the network drops the
   * way back. What the client sends still reaches the server, its closing the connection too.
   * One-shot.
   */
  holdAnswersAfter(pattern: string): void {
    this.state.answerHold = pattern;
  }

  /**
   * The answer to a COMMIT is lost: on the first connection whose client sends `pattern` (an
   * id the transaction writes), its next COMMIT reaches the server, which commits, and the
   * connection breaks before the answer gets back, as a network cut or a pooler restart at
   * that instant would. One-shot.
   */
  loseCommitAnswer(pattern: string): void {
    this.state.commitTrap = pattern;
  }

  /** Cuts every connection and stops accepting new ones. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.dropConnections();
    await closed;
  }
}

function springCommitTrap(state: ProxyState, link: Link, chunk: Buffer): void {
  const pattern = state.commitTrap;
  if (pattern === undefined) return;
  if (!link.trapped && chunk.includes(pattern)) link.trapped = true;
  if (!link.trapped || !chunk.includes('COMMIT')) return;
  state.commitTrap = undefined;
  const { client, upstream } = link;
  upstream.unpipe(client);
  setTimeout(() => {
    client.destroy();
    upstream.destroy();
  }, COMMIT_GRACE_MS).unref();
}

function springAnswerHold(state: ProxyState, link: Link, chunk: Buffer): void {
  const pattern = state.answerHold;
  if (pattern === undefined || !chunk.includes(pattern)) return;
  state.answerHold = undefined;
  link.answersHeld = true;
  link.upstream.unpipe(link.client);
  link.upstream.pause();
}

function flow(link: Link): void {
  if (link.flowing) return;
  link.flowing = true;
  link.client.pipe(link.upstream);
  link.upstream.pipe(link.client);
}

function pause(link: Link): void {
  link.flowing = false;
  const { client, upstream } = link;
  client.unpipe(upstream);
  upstream.unpipe(client);
  client.pause();
  upstream.pause();
}
