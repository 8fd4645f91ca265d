// Transport: the MessageBus contract, RabbitMQ and in-process implementations, Nest transport.
export { DEFAULT_RETRY_POLICY, MESSAGE_BUS } from './bus/message-bus';
export type {
  DeliveredMessage,
  MessageBus,
  MessageHeaders,
  QueueDeclaration,
  RetryPolicy,
  Subscription,
  SubscriptionHandle,
} from './bus/message-bus';
export type { BusLogger } from './bus/bus-logger';
export {
  BrokerRefusedError,
  BusClosedError,
  InvalidSubscriptionError,
  MessagingError,
  PublishFailedError,
} from './bus/messaging.errors';
export {
  classifyFailure,
  InfrastructureUnavailableError,
  NonRetryableError,
} from './bus/failure-kind';
export type { FailureKind } from './bus/failure-kind';
export { describeError } from './bus/retry-schedule';
export { loopFailure, loopFailureLevel } from './polling/polling-loop';
export { AmqpHeaders, CLOUDEVENTS_CONTENT_TYPE } from './rabbitmq/amqp-headers';
export { deadLetterQueueName, retryQueueName } from './rabbitmq/queue-names';
export { DEFAULT_EXCHANGE, RabbitMqBus } from './rabbitmq/rabbitmq-bus';
export type { RabbitMqBusOptions } from './rabbitmq/rabbitmq-bus';
export { InProcessBus } from './in-process/in-process-bus';
export type { DeadLetter, InProcessBusOptions } from './in-process/in-process-bus';
export { BUS_TRANSPORT, BusServer } from './nest/bus-server';
export type {
  BusServerOptions,
  BusServerStatus,
  DeadLetterSink,
  InboxRunner,
  ReplayOutcome,
  RetrySink,
} from './nest/bus-server';
export { BusContext } from './nest/bus-context';
export { BusExceptionFilter } from './nest/bus-exception.filter';
export { OnEvent } from './nest/on-event.decorator';
export type { OnEventOptions } from './nest/on-event.decorator';

// Reliability: outbox (relay), inbox, durable timers, and the module that wires them.
export { MessagingModule } from './messaging.module';
export { MessagingLifecycle } from './messaging.lifecycle';
export type { LoopState } from './polling/polling-loop';
export { ConcurrentWork, type ConcurrentWorkOptions } from './polling/concurrent-work';
export { MESSAGING_OPTIONS } from './messaging.options';
export type { MessagingOptions, RelayTuning, TimerTuning } from './messaging.options';
export { MESSAGING_MIGRATIONS } from './migrations/messaging.migrations';
export { CreateMessagingTables1700000000000 } from './migrations/create-messaging-tables.migration';
export { OutboxWriter } from './outbox/outbox.writer';
export { OutboxRelay } from './outbox/outbox.relay';
export type { RelayBatchResult } from './outbox/outbox.relay';
export { OutboxOutsideTransactionError } from './outbox/outbox.errors';
export { Inbox } from './inbox/inbox.service';
export { DEAD_LETTER_PAGE_MAX, DeadLetterStore } from './dead-letters/dead-letter.store';
export type { DeadLetterRecord } from './dead-letters/dead-letter.store';
export { DeferredRetries, RETRY_TIMER, retryTimerKey } from './retries/deferred-retries';
export type { DueRetry, RetryRunner } from './retries/deferred-retries';
export { TimerService } from './timers/timer.service';
export { TimerPoller } from './timers/timer.poller';
export { TimerHandlerRegistry } from './timers/timer-handler.registry';
export { OnTimer, type OnTimerOptions } from './timers/on-timer.decorator';
export {
  DuplicateTimerHandlerError,
  TimerLockNotFoundError,
  TimerOutsideTransactionError,
} from './timers/timer.errors';
export type {
  FiredTimer,
  PendingTimer,
  TimerHandler,
  TimerLock,
  TimerPayload,
  TimerSchedule,
} from './timers/timer.types';
