import type { EventType } from '@comanda/contracts';
import { EventPattern } from '@nestjs/microservices';

const CONSUMER_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Declares an event handler. `consumer` (kebab-case) names its durable queue,
 * `<service>.<consumer>`: one queue per consumer, so each handler has its own retries
 * and dead letters, and a new handler never steals messages from another.
 */
export function OnEvent(type: EventType, consumer: string): MethodDecorator {
  if (!CONSUMER_NAME.test(consumer)) {
    throw new TypeError(`consumer name "${consumer}" must be kebab-case`);
  }
  return EventPattern(type, { consumer });
}
