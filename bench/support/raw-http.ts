/**
 * The fixed-rate generator's HTTP/1.1 client: kept-alive connections that send one prepared
 * request at a time and read only what a latency needs from the answer (its status and where
 * it ends). On the 2-core development machine the generator shares the CPUs with the servers
 * it measures; undici's pool cost about 45 µs of CPU per request there, as much as the bare
 * baseline server spends answering it (bench/README.md, 28 November 09:15–10:10), and took that
 * from the servers. Answers are framed by Content-Length or chunked transfer coding, the two
 * the platform and the baselines send.
 */
import { connect, type Socket } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');

/** The bytes of one request, as the connection writes it each time. */
export function requestBytes(
  url: URL,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Buffer {
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const payload = Buffer.from(body ?? '');
  if (body !== undefined) lines.push(`content-length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

/**
 * Where an answer that starts at offset 0 of `data` ends, and its status; undefined while
 * `data` does not hold all of it yet.
 */
export function answerEnd(
  data: Buffer,
): { end: number; status: number; close: boolean } | undefined {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  // "HTTP/1.1 200 OK": the status is the three digits after the first space.
  const status = Number(data.toString('latin1', 9, 12));
  const head = data.toString('latin1', 0, headEnd).toLowerCase();
  const bodyStart = headEnd + HEAD_END.length;
  const close = /\r\nconnection:\s*close/.test(head);
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return data.length >= end ? { end, status, close } : undefined;
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) {
    // Each chunk: its size in hex, CRLF, the bytes, CRLF; the last has size 0, then CRLF.
    let at = bodyStart;
    for (;;) {
      const sizeEnd = data.indexOf(LINE_END, at);
      if (sizeEnd === -1) return undefined;
      const size = parseInt(data.toString('latin1', at, sizeEnd), 16);
      if (Number.isNaN(size)) throw new Error('malformed chunk size in an answer');
      if (size === 0) {
        const end = data.indexOf(HEAD_END, sizeEnd) === sizeEnd ? sizeEnd + 4 : -1;
        // No trailers are expected: the last chunk's CRLF is followed by the final CRLF.
        return end !== -1 && data.length >= end ? { end, status, close } : undefined;
      }
      at = sizeEnd + LINE_END.length + size + LINE_END.length;
      if (data.length < at) return undefined;
    }
  }
  // No body (a 204 or 304, or one without framing, which these servers do not send).
  return { end: bodyStart, status, close };
}

/**
 * One kept-alive connection sending `request` whenever asked, one at a time. `answered` gets
 * each answer's status, or undefined when the connection failed with a request in flight;
 * it then connects again for the next one.
 */
export class RawConnection {
  private socket: Socket | undefined;
  private pending: Buffer | undefined;
  private inFlight = false;

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly request: Buffer,
    private readonly answered: (status: number | undefined) => void,
  ) {}

  send(): void {
    this.inFlight = true;
    (this.socket ??= this.open()).write(this.request);
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.pending = undefined;
  }

  private open(): Socket {
    const socket = connect({ port: this.port, host: this.host, noDelay: true });
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    const lost = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.pending = undefined;
      if (this.inFlight) this.finish(undefined);
    };
    socket.on('error', lost);
    socket.on('close', lost);
    return socket;
  }

  private read(chunk: Buffer): void {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const answer = answerEnd(data);
    if (!answer) {
      this.pending = data;
      return;
    }
    this.pending = answer.end < data.length ? data.subarray(answer.end) : undefined;
    // The server ends the connection after this answer: the next request opens another.
    if (answer.close) this.close();
    this.finish(answer.status);
  }

  private finish(status: number | undefined): void {
    this.inFlight = false;
    this.answered(status);
  }
}
