import { randomUUID } from 'node:crypto';
import type { EventPayloads, EventType } from './event-catalogue';

/**
 * CloudEvents 1.0 JSON envelope (https://github.com/cloudevents/spec) with the
 * `tenantid` extension attribute. Every event on the bus travels in one of these.
 */
export interface CloudEvent<T extends EventType = EventType> {
  specversion: '1.0';
  /** Unique per event; consumers' inboxes key on it. */
  id: string;
  /** URI-reference of the producing service, e.g. `/comanda/orders`. */
  source: string;
  type: T;
  /** RFC 3339 timestamp of the state change. */
  time: string;
  /** The aggregate the event is about (order id, payment id, ...). */
  subject: string;
  datacontenttype: 'application/json';
  /** Present when a payload changed incompatibly: the schema version the data follows. */
  dataschema?: string;
  tenantid: string;
  data: EventPayloads[T];
}

export interface NewEvent<T extends EventType> {
  type: T;
  tenantId: string;
  subject: string;
  data: EventPayloads[T];
  dataschema?: string;
}

export function createCloudEvent<T extends EventType>(
  source: string,
  event: NewEvent<T>,
  now: Date = new Date(),
): CloudEvent<T> {
  const envelope: CloudEvent<T> = {
    specversion: '1.0',
    id: randomUUID(),
    source,
    type: event.type,
    time: now.toISOString(),
    subject: event.subject,
    datacontenttype: 'application/json',
    tenantid: event.tenantId,
    data: event.data,
  };
  if (event.dataschema) envelope.dataschema = event.dataschema;
  return envelope;
}

/** Routing key on the `comanda.events` topic exchange: `<event type>.<tenant id>`. */
export function routingKeyOf(event: Pick<CloudEvent, 'type' | 'tenantid'>): string {
  return `${event.type}.${event.tenantid}`;
}

const REQUIRED: ReadonlyArray<keyof CloudEvent> = [
  'specversion',
  'id',
  'source',
  'type',
  'time',
  'subject',
  'tenantid',
];

/** Narrows an unknown decoded message to an envelope; throws with the first missing attribute. */
export function assertCloudEvent(value: unknown): asserts value is CloudEvent {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError('message body is not a CloudEvents JSON object');
  }
  const record = value as Record<string, unknown>;
  for (const key of REQUIRED) {
    if (typeof record[key] !== 'string' || record[key] === '') {
      throw new TypeError(`CloudEvent attribute "${key}" is missing or not a string`);
    }
  }
  if (record['specversion'] !== '1.0') {
    throw new TypeError(`unsupported CloudEvents specversion "${String(record['specversion'])}"`);
  }
}
