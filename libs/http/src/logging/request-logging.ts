import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceLogger } from './logging.module';
import { callerRefusedAs500 } from '../problem/caller-refusal';
import { failedForOutage } from '../problem/reply-with-problem';
import { isSecretName, redactRecord, redactUrl } from './redact-url';

const REDACTED = '[redacted]';

/** Bad gateway, unavailable, gateway timeout: what callers get while a dependency is away. */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

/** Header names whose values never reach a line, beside every name that looks secret. */
const CREDENTIAL_HEADERS = new Set(['cookie', 'set-cookie', 'proxy-authorization']);

/**
 * Decided once per header name seen (a bounded set: past it, names are judged each time).
 */
const secretHeaders = new Map<string, boolean>();
const MAX_REMEMBERED_HEADERS = 1000;

function isSecretHeader(name: string): boolean {
  let secret = secretHeaders.get(name);
  if (secret === undefined) {
    secret = CREDENTIAL_HEADERS.has(name) || isSecretName(name);
    if (secretHeaders.size < MAX_REMEMBERED_HEADERS) secretHeaders.set(name, secret);
  }
  return secret;
}

const json = JSON.stringify;
const REDACTED_JSON = json(REDACTED);

/**
 * The request's headers as a JSON object, the values of credentials replaced. Written
 * member by member: one generic `JSON.stringify` of a copy of the headers took several
 * times as long per request line (issue 10).
 */
export function redactedHeadersJson(headers: IncomingHttpHeaders): string {
  let out = '';
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    out += `${out === '' ? '' : ','}${json(name)}:${isSecretHeader(name) ? REDACTED_JSON : json(value)}`;
  }
  return `{${out}}`;
}

function hasOwnMembers(record: object): boolean {
  for (const name in record) if (Object.hasOwn(record, name)) return true;
  return false;
}

/** The parsed query as JSON, the values of secret names replaced; most requests have none. */
function redactedQueryJson(query: unknown): string {
  if (query !== null && typeof query === 'object' && !hasOwnMembers(query)) return '{}';
  return json(redactRecord(query));
}

const FORWARDED = Symbol('comanda.forwardedRequest');

interface ForwardedRaw {
  [FORWARDED]?: {
    by: FastifyRequest;
    upstream: string;
    headers: IncomingHttpHeaders;
    /** Set by `markUpstreamAnswer`: the status is the upstream's, over HTTP. */
    answeredUpstream?: boolean;
  };
}

/**
 * The gateway forwards `request` to `upstream`: the gateway's line names the upstream, and a
 * service of the same process that serves the same request object (ADR 0036's hand-off)
 * writes no second line for it (ADR 0049). Over HTTP, the service gets a request object of
 * its own and writes its line as for any caller. The gateway's line shows the headers the
 * caller sent, kept here: the hand-off gives the service headers of its own (forwarded-for,
 * trace context, the upstream's host).
 */
export function markForwarded(request: FastifyRequest, upstream: string): void {
  (request.raw as ForwardedRaw)[FORWARDED] = { by: request, upstream, headers: request.headers };
}

/**
 * The gateway passes on the answer its upstream gave over HTTP: that service wrote its own
 * line for the exchange, at the level its failure deserves (an error, or a warning for a
 * dependency away, which the gateway cannot see from here). The gateway's line of an
 * upstream's 5xx is then a warning, so that one failure is one error line, the service's.
 */
export function markUpstreamAnswer(request: FastifyRequest): void {
  const forwarded = (request.raw as ForwardedRaw)[FORWARDED];
  if (forwarded !== undefined) forwarded.answeredUpstream = true;
}

const FORWARDED_CONNECTION = Symbol('comanda.forwardedConnection');

interface MarkedSocket {
  [FORWARDED_CONNECTION]?: true;
}

/**
 * Every request on `socket` comes from the gateway of this process, whose own line covers it
 * (ADR 0049): a forwarded body of unannounced length, which reaches a service of the same
 * process over an in-process connection (ADR 0035) instead of on the gateway's own request,
 * and the gateway's own calls to the services (the dead-letter admin's fan-out).
 */
export function markForwardedConnection(socket: object): void {
  (socket as MarkedSocket)[FORWARDED_CONNECTION] = true;
}

// Orchestrators probe these every few seconds: a line per probe would bury everything else.
function isHealthProbe(url: string): boolean {
  return url.startsWith('/health/');
}

/**
 * One line per request, written when its response has been sent (Fastify's `onResponse`)
 * or when the caller went away first (`onRequestAbort`): the service, the request id, the
 * upstream it was forwarded to (the gateway's lines), the method, the URL and query with
 * secret values redacted, the headers with credentials redacted, the status and the time
 * taken. The line is built field by field here, so the request path pays for no
 * per-request child logger and no generic redaction pass.
 */
export function installRequestLogging(fastify: FastifyInstance, logger: ServiceLogger): void {
  const lines = logger.requests;
  const serviceJson = json(logger.serviceName);
  const write = (
    request: FastifyRequest,
    status: number | undefined,
    elapsedMs: number | undefined,
    message: string,
  ): void => {
    const url = request.url;
    if (isHealthProbe(url)) return;
    const forwarded = (request.raw as ForwardedRaw)[FORWARDED];
    // Handed off in process: the gateway's line is this exchange's line.
    if (forwarded !== undefined && forwarded.by !== request) return;
    if ((request.raw.socket as MarkedSocket | null)?.[FORWARDED_CONNECTION]) return;
    // A rate limit answered 500 where nothing else may be answered is the caller's doing.
    const failed = status !== undefined && status >= 500 && !callerRefusedAs500(request);
    // An upstream or the database away is an outage to see, not one error line per caller.
    const outage = failed && (OUTAGE_STATUSES.has(status) || failedForOutage(request));
    // One line per request: chosen without allocating.
    let level: 'warn' | 'error' | 'info' = 'info';
    let summary = message;
    if (outage) {
      level = 'warn';
      summary = 'request failed: a dependency is away';
    } else if (failed && forwarded?.answeredUpstream === true) {
      level = 'warn';
      summary = 'request failed upstream: its own line says why';
    } else if (failed) {
      level = 'error';
      summary = 'request errored';
    }
    if (!lines.isLevelEnabled(level)) return;
    const query = request.query;
    const socket = request.raw.socket as Socket | undefined;
    const id = json(request.id);
    // The members of the line, in pino-http's shape, as JSON text (undefined ones left out,
    // as JSON.stringify leaves them out).
    let req = `"id":${id},"method":${json(request.method)},"url":${json(redactUrl(url))}`;
    if (query !== undefined) req += `,"query":${redactedQueryJson(query)}`;
    req += `,"headers":${redactedHeadersJson(forwarded?.headers ?? request.headers)}`;
    const address = socket?.remoteAddress;
    if (address !== undefined) req += `,"remoteAddress":${json(address)}`;
    const port = socket?.remotePort;
    if (port !== undefined) req += `,"remotePort":${json(port)}`;
    let members = `"service":${serviceJson},"requestId":${id}`;
    if (forwarded !== undefined) members += `,"upstream":${json(forwarded.upstream)}`;
    members += `,"req":{${req}},"res":{${status === undefined ? '' : `"statusCode":${json(status)}`}}`;
    if (elapsedMs !== undefined) members += `,"responseTime":${json(Math.round(elapsedMs))}`;
    lines.write(level, members, summary);
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    write(request, reply.statusCode, reply.elapsedTime, 'request completed');
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    write(request, undefined, undefined, 'request aborted');
    done();
  });
}
