// Transport: the MessageBus contract, RabbitMQ and in-process implementations, Nest transport.
export { DEFAULT_RETRY_POLICY, MESSAGE_BUS } from './bus/message-bus';
export type {
  DeliveredMessage,
  MessageBus,
  MessageHeaders,
  RetryPolicy,
  Subscription,
  SubscriptionHandle,
} from './bus/message-bus';
export type { BusLogger } from './bus/bus-logger';
export {
  BusClosedError,
  InvalidSubscriptionError,
  MessagingError,
  PublishFailedError,
} from './bus/messaging.errors';
export { AmqpHeaders, CLOUDEVENTS_CONTENT_TYPE } from './rabbitmq/amqp-headers';
export { deadLetterQueueName, retryQueueName } from './rabbitmq/queue-names';
export { DEFAULT_EXCHANGE, RabbitMqBus } from './rabbitmq/rabbitmq-bus';
export type { RabbitMqBusOptions } from './rabbitmq/rabbitmq-bus';
export { InProcessBus } from './in-process/in-process-bus';
export type { DeadLetter, InProcessBusOptions } from './in-process/in-process-bus';
export { BUS_TRANSPORT, BusServer } from './nest/bus-server';
export type { BusServerOptions, BusServerStatus } from './nest/bus-server';
export { BusContext } from './nest/bus-context';
export { BusExceptionFilter } from './nest/bus-exception.filter';
export { OnEvent } from './nest/on-event.decorator';
