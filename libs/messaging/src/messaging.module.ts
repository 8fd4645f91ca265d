import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DeadLetterStore } from './dead-letters/dead-letter.store';
import { Inbox } from './inbox/inbox.service';
import { MessagingLifecycle } from './messaging.lifecycle';
import { MESSAGING_OPTIONS, qualifiedTable, type MessagingOptions } from './messaging.options';
import { OutboxRelay } from './outbox/outbox.relay';
import { OutboxWriter } from './outbox/outbox.writer';
import { TimerHandlerRegistry } from './timers/timer-handler.registry';
import { TimerPoller } from './timers/timer.poller';
import { TimerService } from './timers/timer.service';
import { DeferredRetries } from './retries/deferred-retries';

/**
 * Outbox, inbox, durable timers and consumers' durable retries of one service. Needs a TypeORM `DataSource` and the
 * `MESSAGE_BUS` from a global module of the host (the runtime provides both); the service's
 * migrations must include `MESSAGING_MIGRATIONS`.
 */
@Module({})
export class MessagingModule {
  static forService(options: MessagingOptions): DynamicModule {
    qualifiedTable(options.schema, 'outbox'); // fail at boot on a bad schema name
    return {
      module: MessagingModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        OutboxWriter,
        OutboxRelay,
        Inbox,
        DeadLetterStore,
        TimerService,
        TimerHandlerRegistry,
        TimerPoller,
        DeferredRetries,
        MessagingLifecycle,
      ],
      exports: [
        OutboxWriter,
        Inbox,
        DeadLetterStore,
        DeferredRetries,
        TimerService,
        MessagingLifecycle,
      ],
    };
  }
}
