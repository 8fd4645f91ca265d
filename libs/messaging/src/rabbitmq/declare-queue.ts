import type { ConfirmChannel } from 'amqplib';
import type { RetryPolicy } from '../bus/message-bus';
import { bindingKeyOf, deadLetterQueueName, retryQueueName } from './queue-names';

/**
 * One consumer's topology (docs/adr/0002-messaging-transport.md): its durable queue bound to
 * its event types, a TTL queue per retry delay that dead-letters back into it, and its
 * dead-letter queue. Idempotent: every service declares every consumer's topology at start.
 */
export async function declareQueue(
  channel: ConfirmChannel,
  exchange: string,
  queue: string,
  eventTypes: readonly string[],
  retry: RetryPolicy,
): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  for (const eventType of eventTypes) {
    await channel.bindQueue(queue, exchange, bindingKeyOf(eventType));
  }
  for (const delayMs of new Set(retry.delaysMs)) {
    await channel.assertQueue(retryQueueName(queue, delayMs), {
      durable: true,
      arguments: {
        'x-message-ttl': delayMs,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': queue,
      },
    });
  }
  await channel.assertQueue(deadLetterQueueName(queue), { durable: true });
}
