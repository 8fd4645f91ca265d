import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { orderPlaced } from '../bus/message-bus.contract';
import { Inbox } from '../inbox/inbox.service';
import { BusExceptionFilter } from '../nest/bus-exception.filter';
import { BusServer } from '../nest/bus-server';
import { OnEvent } from '../nest/on-event.decorator';
import {
  BUS_KINDS,
  messagingOptions,
  openServiceDatabase,
  SCHEMA,
  type BusUnderTest,
} from '../outbox/test-support/messaging-test-env';
import { DeadLetterStore } from './dead-letter.store';

const PROBE = Symbol('PROBE');

/** What the handler saw in the deliveries table while it ran, per attempt. */
interface Probe {
  dataSource: DataSource;
  seen: Array<{ subject: string; attempt: number; count: number | null; lastError: string | null }>;
}

@Controller()
class CountingHandlers {
  constructor(@Inject(PROBE) private readonly probe: Probe) {}

  /** Fails the first attempt of a subject that starts with `flaky-`. */
  @OnEvent(EventTypes.OrderPlaced, 'counted')
  async handle(@Payload() event: CloudEvent): Promise<void> {
    const [row] = (await this.probe.dataSource.query(
      `SELECT deliveries, last_error FROM "${SCHEMA}"."deliveries" WHERE event_id = $1`,
      [event.id],
    )) as Array<{ deliveries: number; last_error: string | null }>;
    const attempt = this.probe.seen.filter((s) => s.subject === event.subject).length + 1;
    this.probe.seen.push({
      subject: event.subject,
      attempt,
      count: row?.deliveries ?? null,
      lastError: row?.last_error ?? null,
    });
    if (event.subject.startsWith('flaky-') && attempt === 1) throw new Error('kitchen printer jam');
  }
}

describe.each(BUS_KINDS)('delivery counts on the %s bus', (kind, create) => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let bus: BusUnderTest;
  let app: INestMicroservice;
  const probe = { seen: [] } as unknown as Probe;

  beforeAll(async () => {
    db = await createTestDatabase(`delivery_counts_${kind === 'RabbitMQ' ? 'amqp' : 'mem'}`);
    dataSource = await openServiceDatabase(db.url);
    probe.dataSource = dataSource;
    bus = await create('delivery-counts');
    bus.track('svc.counted', [20]);
    const options = messagingOptions();
    @Module({ controllers: [CountingHandlers], providers: [{ provide: PROBE, useValue: probe }] })
    class CountingModule {}
    app = await NestFactory.createMicroservice(CountingModule, {
      strategy: new BusServer(bus.connect(), {
        service: 'svc',
        prefetch: 4,
        retry: { delaysMs: [20] },
        inbox: new Inbox(dataSource, options),
        deadLetters: new DeadLetterStore(dataSource, options),
      }),
      logger: false,
    });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
  });
  afterAll(async () => {
    await app?.close();
    await bus?.close();
    await dataSource?.destroy();
    await db?.drop();
  });

  const publisher = () => bus.connect();
  const remaining = async () =>
    (
      (await dataSource.query(`SELECT count(*)::int AS n FROM "${SCHEMA}"."deliveries"`)) as Array<{
        n: number;
      }>
    )[0].n;

  it('counts a first delivery before its handler only where the bus cannot flag a redelivery', async () => {
    await publisher().publish(orderPlaced('tenant-a', 'calm-1'));

    const [seen] = await waitFor('the handler to run', () => {
      const mine = probe.seen.filter((s) => s.subject === 'calm-1');
      return mine.length > 0 ? mine : undefined;
    });
    // RabbitMQ flags a redelivery, even one after the consumer's process died, so a first
    // delivery needs no count; the in-process bus cannot, so it counts every delivery.
    expect(seen.count).toBe(kind === 'RabbitMQ' ? null : 1);
    await waitFor('nothing left to count', async () =>
      (await remaining()) === 0 ? true : undefined,
    );
  });

  it('has a retry find the failed delivery counted with its error, and forgets both once handled', async () => {
    await publisher().publish(orderPlaced('tenant-a', 'flaky-1'));

    const retry = await waitFor('the retry to run', () =>
      probe.seen.find((s) => s.subject === 'flaky-1' && s.attempt === 2),
    );
    expect(retry).toMatchObject({ count: 2, lastError: 'kitchen printer jam' });
    await waitFor('nothing left to count', async () =>
      (await remaining()) === 0 ? true : undefined,
    );
  });
});
