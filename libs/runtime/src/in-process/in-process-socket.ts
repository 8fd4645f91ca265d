import { AsyncResource } from 'node:async_hooks';
import { Duplex } from 'node:stream';

/**
 * One end of a connection between two parts of the same process: what one end writes, the
 * other reads, in order, with backpressure, delivered on a later tick (never inside the
 * writer's call, as a kernel socket would not either) and in the async scope of the reading
 * side. Ending one end ends the other's reading side; destroying one end destroys both, as a
 * reset would. Carries what Node's HTTP server and undici ask of a socket; timeouts and
 * keep-alive probes do not apply in process and are accepted without effect.
 */
export class InProcessSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remoteFamily = 'IPv4';
  readonly localAddress = '127.0.0.1';
  readonly connecting = false;
  private peer!: InProcessSocket;
  /** Where this end's reads run: the scope of whoever owns this end. */
  private scope!: AsyncResource;
  /** The peer's write waiting for this end to read more. */
  private pendingWrite: (() => void) | undefined;

  private constructor(
    readonly remotePort: number,
    readonly localPort: number,
  ) {
    super({ allowHalfOpen: true });
  }

  /**
   * A connected pair. `serverScope` is the async scope the server end reads in (the scope of
   * the service whose server takes the connection); the client end reads in its creator's.
   */
  static pair(serverPort: number, serverScope: AsyncResource): [InProcessSocket, InProcessSocket] {
    const clientPort = nextPort();
    const client = new InProcessSocket(serverPort, clientPort);
    const server = new InProcessSocket(clientPort, serverPort);
    client.peer = server;
    server.peer = client;
    client.scope = new AsyncResource('comanda.in-process-socket');
    server.scope = serverScope;
    return [client, server];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.deliver(chunk, done);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    this.deliver(
      chunks.length === 1 ? chunks[0].chunk : Buffer.concat(chunks.map((entry) => entry.chunk)),
      done,
    );
  }

  override _final(done: (error?: Error | null) => void): void {
    const peer = this.peer;
    process.nextTick(() => {
      if (!peer.destroyed) peer.scope.runInAsyncScope(() => peer.push(null));
      done();
    });
  }

  override _read(): void {
    const resume = this.pendingWrite;
    this.pendingWrite = undefined;
    resume?.();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    this.pendingWrite = undefined;
    if (!peer.destroyed) process.nextTick(() => peer.destroy());
    done(error);
  }

  private deliver(chunk: Buffer, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    process.nextTick(() => {
      if (peer.destroyed) return done();
      const more = peer.scope.runInAsyncScope(() => peer.push(chunk));
      if (more) done();
      else peer.pendingWrite = () => done();
    });
  }

  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  address(): { address: string; family: string; port: number } {
    return { address: this.localAddress, family: 'IPv4', port: this.localPort };
  }
}

let lastPort = 0;
/** Ports to tell connections apart in logs; no port is bound. */
function nextPort(): number {
  lastPort = lastPort >= 65535 ? 1 : lastPort + 1;
  return lastPort;
}
