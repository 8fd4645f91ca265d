import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../problem/problem-details';
import { ProblemError } from '../problem/problem.error';
import { writeProblem } from '../problem/reply-with-problem';
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
    socket.write(rawProblemAnswer(clientErrorProblem(error)));
  }
  socket.destroy(error);
}

/** `problem` as a whole HTTP/1.1 answer that closes the connection, for a bare socket. */
function rawProblemAnswer(problem: ProblemError): string {
  const requestId = randomUUID();
  const body = JSON.stringify(problemBody(problem, requestId));
  return (
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

const EXPECTATION_FAILED = problemForStatus(
  417,
  'This server meets no expectation but 100-continue: send the request without Expect.',
);

const CONNECT_REFUSED = new ProblemError({
  status: 501,
  code: 'request.not_implemented',
  title: 'Not Implemented',
  detail: 'CONNECT asks a proxy for a tunnel: this server is none.',
});

/**
 * Two requests Node answers itself, outside any route, and not as problems: an `Expect` other
 * than `100-continue` (a bare 417) and a CONNECT (the connection closed without a word). Both
 * are answered with a problem here, as every status of 400 and over is, and the connection
 * closes (the request's body, if any, is not read).
 */
export function answerUnservedRequests(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('connection', 'close');
    writeProblem(response, EXPECTATION_FAILED, randomUUID());
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(rawProblemAnswer(CONNECT_REFUSED));
  });
}
