import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventTypes } from '@comanda/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource } from 'typeorm';
import { InProcessBus } from './in-process/in-process-bus';
import { Inbox } from './inbox/inbox.service';
import { MessagingLifecycle } from './messaging.lifecycle';
import { MessagingModule } from './messaging.module';
import { OutboxWriter } from './outbox/outbox.writer';
import {
  coreModule,
  configUpdated,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
} from './outbox/test-support/messaging-test-env';
import { TimerService } from './timers/timer.service';

describe('MessagingModule.forService', () => {
  let db: TestDatabase;
  let bus: InProcessBus;
  let dataSource: DataSource;
  let app: INestApplicationContext;
  const received: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('messaging-module');
    bus = new InProcessBus();
    await bus.subscribe({
      queue: 'svc.module',
      eventTypes: [EventTypes.ConfigUpdated],
      handler: async ({ event }) => {
        received.push(event.id);
      },
    });
    dataSource = await openServiceDatabase(db.url);

    const CoreModule = coreModule(dataSource, bus);
    @Module({ imports: [CoreModule, MessagingModule.forService(messagingOptions())] })
    class RootModule {}
    app = await NestFactory.createApplicationContext(RootModule, { logger: ['error', 'warn'] });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await bus.close();
    await dataSource.destroy();
    await db.drop();
  });

  it('gives the service an outbox writer, an inbox and timers, and relays committed events from bootstrap on', async () => {
    expect(app.get(Inbox)).toBeInstanceOf(Inbox);
    expect(app.get(TimerService)).toBeInstanceOf(TimerService);
    const event = await dataSource.transaction((manager) =>
      app.get(OutboxWriter).add(manager, configUpdated('module-1', 1)),
    );
    await waitFor('the relay started at bootstrap to publish', () => received.includes(event.id));
    expect(app.get(MessagingLifecycle).isHealthy()).toBe(true);
  });

  it('publishes every pending event before the application finishes shutting down', async () => {
    const writer = app.get(OutboxWriter);
    const lifecycle = app.get(MessagingLifecycle);
    const events = await dataSource.transaction(async (manager) => {
      const written = [];
      for (const version of [2, 3, 4, 5])
        written.push(await writer.add(manager, configUpdated('module-1', version)));
      return written;
    });

    await app.close();

    const pending = await dataSource.query(
      `SELECT 1 FROM "${SCHEMA}"."outbox" WHERE published_at IS NULL`,
    );
    expect(pending).toEqual([]);
    expect(received).toEqual(expect.arrayContaining(events.map((event) => event.id)));
    expect(lifecycle.isHealthy()).toBe(false);
  });
});
