import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a refused caller may go on sending the body nobody will read. */
export const LINGER_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * Answers this request with `Connection: close` and closes the connection without resetting
 * a caller that is still sending the body the answer refused (too large, no valid token).
 *
 * Node ends such a connection with `destroySoon`: our side's FIN, then the socket is closed as
 * soon as the answer is flushed. Bytes of the body still arriving then meet a closed socket,
 * the kernel answers them with a reset, and a caller still writing sees `EPIPE` or
 * `ECONNRESET`, often before it has read the answer waiting in its buffer. Here the FIN
 * goes out as before, but the socket stays open, and the server goes on reading and dropping
 * the body until the caller closes its side or LINGER_MS pass (a lingering close, as nginx
 * and Apache do). The HTTP parser keeps the socket: nothing else changes on it.
 */
export function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  const socket = request.raw.socket as Socket | null;
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = lingeringClose;
}

function lingeringClose(this: Socket): void {
  if (this.destroyed) return;
  // The caller has sent all it had: nothing to wait for.
  if (this.readableEnded) return Socket.prototype.destroySoon.call(this);
  const close = () => {
    clearTimeout(deadline);
    this.destroy();
  };
  const deadline = setTimeout(close, LINGER_MS);
  deadline.unref();
  // The caller's FIN: done both ways.
  this.once('end', close);
  this.once('close', () => clearTimeout(deadline));
  if (this.writable) this.end();
}
