import type { MessageHeaders } from '../bus/message-bus';

/** AMQP header names Comanda puts on messages beside the CloudEvent body. */
export const AmqpHeaders = {
  requestId: 'x-request-id',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /** Attempt number of the next delivery, set when a failed message is sent to retry. */
  attempt: 'x-comanda-attempt',
  lastError: 'x-comanda-last-error',
  /** On dead letters: why, after how many attempts, when, and from which queue. */
  error: 'x-comanda-error',
  attempts: 'x-comanda-attempts',
  failedAt: 'x-comanda-failed-at',
  queue: 'x-comanda-queue',
} as const;

/** CloudEvents AMQP protocol binding, structured content mode. */
export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';

export function toAmqpHeaders(headers: MessageHeaders): Record<string, string> {
  const amqp: Record<string, string> = {};
  if (headers.requestId) amqp[AmqpHeaders.requestId] = headers.requestId;
  if (headers.traceparent) amqp[AmqpHeaders.traceparent] = headers.traceparent;
  if (headers.tracestate) amqp[AmqpHeaders.tracestate] = headers.tracestate;
  return amqp;
}

export function fromAmqpHeaders(amqp: Record<string, unknown> | undefined): MessageHeaders {
  const text = (name: string): string | undefined => {
    const value = amqp?.[name];
    if (typeof value === 'string') return value;
    return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  };
  const headers: MessageHeaders = {};
  const requestId = text(AmqpHeaders.requestId);
  const traceparent = text(AmqpHeaders.traceparent);
  const tracestate = text(AmqpHeaders.tracestate);
  if (requestId) headers.requestId = requestId;
  if (traceparent) headers.traceparent = traceparent;
  if (tracestate) headers.tracestate = tracestate;
  return headers;
}

/** The attempt a delivery is on: 1 unless a retry set the header. */
export function attemptOf(amqp: Record<string, unknown> | undefined): number {
  const value = Number(amqp?.[AmqpHeaders.attempt]);
  return Number.isInteger(value) && value >= 1 ? value : 1;
}
