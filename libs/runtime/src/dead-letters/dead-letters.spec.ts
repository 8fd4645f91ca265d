import { Controller, Module } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, createCloudEvent, type CloudEvent } from '@comanda/contracts';
import {
  BusContext,
  InProcessBus,
  NonRetryableError,
  OnEvent,
  RabbitMqBus,
  type MessageBus,
} from '@comanda/messaging';
import { schemaOf } from '@comanda/persistence';
import {
  createTestBroker,
  createTestDatabase,
  disposeTestBroker,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RunningService, ServiceDefinition } from '../service-definition';
import { startService } from '../start-service';

class CreateBookings1800000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE "${schemaOf(runner)}".bookings (event_id text NOT NULL)`);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${schemaOf(runner)}".bookings`);
  }
}

/** Subjects the handler refuses until the test "fixes" the cause. */
const refused = new Set<string>();

@Controller()
class LedgerHandlers {
  @OnEvent(EventTypes.ConfigUpdated, { consumer: 'book' })
  async book(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    if (refused.has(event.subject)) throw new NonRetryableError(`unknown account ${event.subject}`);
    await ctx
      .getTransaction()
      .query(`INSERT INTO ledger.bookings (event_id) VALUES ($1)`, [event.id]);
  }
}

@Module({ controllers: [LedgerHandlers] })
class LedgerModule {}

const ledger: ServiceDefinition = {
  name: 'ledger',
  database: { schema: 'ledger', entities: [], migrations: [CreateBookings1800000000000] },
  module: LedgerModule,
  // The admin routes' permission is checked by the security module like any route; this
  // suite is about what they do, so it runs the service without token checks.
  security: false,
};
const topology = [
  { service: 'ledger', consumer: 'book', eventTypes: [EventTypes.ConfigUpdated] },
] as const;

function accountEvent(subject: string): CloudEvent {
  return createCloudEvent('/comanda/config-store', {
    type: EventTypes.ConfigUpdated,
    tenantId: 'tenant-a',
    subject,
    data: { entity: 'accounts', configId: subject, version: 1, publisher: 'p', deleted: false },
  });
}

const headers = { 'x-api-version': '0' };

describe.each(['in-process', 'RabbitMQ'] as const)('dead letters (%s bus)', (kind) => {
  let database: TestDatabase;
  let broker: TestBroker | undefined;
  let bus: MessageBus;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase(`dead_letters_${kind}`);
    if (kind === 'RabbitMQ') {
      broker = await createTestBroker('dead-letters');
      bus = new RabbitMqBus({
        url: broker.url,
        exchange: broker.exchange,
        queuePrefix: broker.queuePrefix,
      });
    } else {
      bus = new InProcessBus();
    }
    service = await startService(ledger, {
      port: 0,
      databaseUrl: database.url,
      bus,
      env: { LOG_LEVEL: 'silent' },
      topology,
    });
  });

  afterAll(async () => {
    await service?.close();
    await bus?.close();
    if (broker) await disposeTestBroker(broker, [`${broker.queuePrefix}ledger.book`]);
    await database?.drop();
  });

  const bookings = async (eventId: string) => {
    const rows: unknown[] = await service.app
      .get(DataSource)
      .query(`SELECT 1 FROM ledger.bookings WHERE event_id = $1`, [eventId]);
    return rows.length;
  };
  const list = async () => {
    const response = await fetch(`${service.url}/admin/dead-letters`, { headers });
    expect(response.status).toBe(200);
    return ((await response.json()) as { items: Array<Record<string, unknown>> }).items;
  };

  it('keeps a message its handler cannot apply in the service table, lists it, and replays it once through the same inbox', async () => {
    const subject = `acct-${kind}`;
    refused.add(subject);
    const event = accountEvent(subject);
    // The in-process bus settles the publish once the message is parked.
    await bus.publish(event);

    const letter = await waitFor('the dead letter', async () =>
      (await list()).find((item) => item.eventId === event.id),
    );
    expect(letter).toMatchObject({
      id: expect.stringMatching(/^ledger\.[0-9]+$/),
      service: 'ledger',
      consumer: 'ledger.book',
      eventType: EventTypes.ConfigUpdated,
      tenantId: 'tenant-a',
      subject,
      error: `unknown account ${subject}`,
      attempts: 1,
    });
    expect(await bookings(event.id)).toBe(0);

    // Still failing: the replay answers 422 and the letter stays.
    const failed = await fetch(`${service.url}/admin/dead-letters/${String(letter.id)}/replay`, {
      method: 'POST',
      headers,
    });
    expect(failed.status).toBe(422);
    expect(((await failed.json()) as { code: string }).code).toBe('dead_letter.replay_failed');

    refused.delete(subject);
    const replayed = await fetch(`${service.url}/admin/dead-letters/${String(letter.id)}/replay`, {
      method: 'POST',
      headers,
    });
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toEqual({ id: letter.id, outcome: 'applied' });
    expect(await bookings(event.id)).toBe(1);
    expect((await list()).find((item) => item.eventId === event.id)).toBeUndefined();

    // The same event again (a redelivery) finds its inbox mark: still applied once.
    await bus.publish(event);
    await waitFor(
      'the redelivery to be skipped',
      async () =>
        await service.app
          .get(DataSource)
          .query(`SELECT 1 FROM ledger.deliveries WHERE event_id = $1`, [event.id])
          .then((rows: unknown[]) => rows.length === 0),
    );
    expect(await bookings(event.id)).toBe(1);
  });

  it('answers a replay of an event already applied without applying it again, and purges', async () => {
    const event = accountEvent(`acct-twice-${kind}`);
    await bus.publish(event);
    await waitFor('the event applied', async () => (await bookings(event.id)) === 1);
    // A dead letter of an event the inbox already has (e.g. replayed by two operators).
    const [row] = await service.app.get(DataSource).query(
      `INSERT INTO ledger.dead_letters (consumer, event_id, event_type, tenant_id, event, error, attempts)
       VALUES ('ledger.book', $1, $2, 'tenant-a', $3, 'lost', 1) RETURNING id`,
      [event.id, event.type, JSON.stringify(event)],
    );
    const replayed = await fetch(`${service.url}/admin/dead-letters/ledger.${row.id}/replay`, {
      method: 'POST',
      headers,
    });
    expect(await replayed.json()).toEqual({ id: `ledger.${row.id}`, outcome: 'already-applied' });
    expect(await bookings(event.id)).toBe(1);

    const [other] = await service.app.get(DataSource).query(
      `INSERT INTO ledger.dead_letters (consumer, event_id, event_type, event, error, attempts)
       VALUES ('ledger.book', 'x-1', $1, $2, 'lost', 1) RETURNING id`,
      [event.type, JSON.stringify({ ...event, id: 'x-1' })],
    );
    const purged = await fetch(`${service.url}/admin/dead-letters/ledger.${other.id}`, {
      method: 'DELETE',
      headers,
    });
    expect(purged.status).toBe(204);
    const again = await fetch(`${service.url}/admin/dead-letters/ledger.${other.id}`, {
      method: 'DELETE',
      headers,
    });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { code: string }).code).toBe('dead_letter.not_found');
  });
});
