import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../problem/problem-details';
import type { ProblemError } from '../problem/problem.error';
import { problemForStatus } from '../problem/status-problems';
import { REQUEST_ID_HEADER } from '../request/request-id';

/** What Node raises for a connection whose request it could not read (its `clientError`). */
type ClientError = Error & { code?: string };

/** The problem for an HTTP request Node refused before any route saw it. */
export function clientErrorProblem(error: ClientError): ProblemError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problemForStatus(408, 'The request did not arrive in full in time.');
    case 'HPE_HEADER_OVERFLOW':
      return problemForStatus(431, 'The request headers exceed the size this server reads.');
    default:
      return problemForStatus(400, 'The request is not valid HTTP/1.1.');
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not read (not received in time, headers
 * too large, not HTTP) is answered with a problem, as every other error, instead of Fastify's
 * own JSON, and the connection closes. As Node's own handler does, nothing is written once
 * an answer on this connection has begun (a 408 after a 504 would be a second answer).
 */
export function answerClientError(error: ClientError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's own handler reads the same field: the response being written on this socket.
  const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    const problem = clientErrorProblem(error);
    const requestId = randomUUID();
    const body = JSON.stringify(problemBody(problem, requestId));
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
