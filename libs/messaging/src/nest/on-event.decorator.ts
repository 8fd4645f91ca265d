import type { EventType } from '@comanda/contracts';
import { EventPattern } from '@nestjs/microservices';

const CONSUMER_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export interface OnEventOptions {
  /** Kebab-case name of the consumer: its durable queue `<service>.<consumer>` and its inbox key. */
  consumer: string;
}

/**
 * Declares an event handler, `(event, ctx: BusContext)`. `consumer` names its durable queue,
 * `<service>.<consumer>`: one queue per consumer, so each handler has its own retries and
 * dead letters, and a new handler never steals messages from another. In a service with a
 * database the handler runs inside the inbox transaction (`ctx.getTransaction()`): a
 * redelivered event is skipped, and the effect commits with the mark before the ack.
 */
export function OnEvent(type: EventType, options: OnEventOptions | string): MethodDecorator {
  const consumer = typeof options === 'string' ? options : options.consumer;
  if (!CONSUMER_NAME.test(consumer)) {
    throw new TypeError(`consumer name "${consumer}" must be kebab-case`);
  }
  return EventPattern(type, { consumer });
}
