/** Names of the queues behind one subscription (topology in docs/adr/0002-messaging-transport.md). */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}`;
}

export function deadLetterQueueName(queue: string): string {
  return `${queue}.dlq`;
}

/** Binding of a consumer queue: the event type, any tenant. */
export function bindingKeyOf(eventType: string): string {
  return `${eventType}.*`;
}
