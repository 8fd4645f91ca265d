import { Body, Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import { IsString } from 'class-validator';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DataSource } from 'typeorm';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { currentContext } from '@comanda/context';
import { Ctx, Payload } from '@nestjs/microservices';
import { BusContext, InProcessBus, OnEvent, OutboxWriter, RabbitMqBus } from '@comanda/messaging';
import { schemaOf, UnitOfWork, type Tx } from '@comanda/persistence';
import { Public } from '@comanda/security';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import {
  createTestBroker,
  createTestDatabase,
  disposeTestBroker,
  TcpProxy,
  waitFor,
  type TestDatabase,
} from '@comanda/testing';
import type { RunningService, ServiceDefinition } from './service-definition';
import { startService } from './start-service';

class CreateNotes1800000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(
      `CREATE TABLE "${schema}".notes (id text PRIMARY KEY, seen_by text, seen_count int NOT NULL DEFAULT 0)`,
    );
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${schemaOf(runner)}".notes`);
  }
}

class CreateNote {
  @IsString()
  id!: string;
}

@Injectable()
class NotesService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly outbox: OutboxWriter,
  ) {}

  create(id: string) {
    return this.unitOfWork.run(async (manager) => {
      await manager.query(`INSERT INTO notes.notes (id) VALUES ($1)`, [id]);
      await this.outbox.add(manager, {
        type: EventTypes.ConfigUpdated,
        tenantId: 'tenant-a',
        subject: id,
        data: { entity: 'notes', configId: id, version: 1, publisher: 'test', deleted: false },
      });
    });
  }

  /** A use case: runs in the caller's transaction (here the consumer's inbox transaction). */
  async markSeen(tx: Tx, event: CloudEvent, requestId: string) {
    await tx.query(
      `UPDATE notes.notes SET seen_by = $2, seen_count = seen_count + 1 WHERE id = $1`,
      [event.subject, requestId],
    );
  }
}

@Controller('notes')
class NotesController {
  constructor(
    private readonly notes: NotesService,
    private readonly dataSource: DataSource,
  ) {}

  @Public()
  @Post()
  async create(@Body() body: CreateNote) {
    await this.notes.create(body.id);
    return { id: body.id };
  }

  @Public()
  @Get('slow')
  async slow() {
    await this.dataSource.query('SELECT pg_sleep(0.5)');
    return { finished: true };
  }

  @OnEvent(EventTypes.ConfigUpdated, { consumer: 'mark-seen' })
  async onNote(@Payload() event: CloudEvent, @Ctx() ctx: BusContext) {
    await this.notes.markSeen(ctx.getTransaction(), event, currentContext()?.requestId ?? 'none');
  }
}

@Module({ controllers: [NotesController], providers: [NotesService] })
class NotesModule {}

const notesService: ServiceDefinition = {
  name: 'notes',
  database: { schema: 'notes', entities: [], migrations: [CreateNotes1800000000000] },
  module: NotesModule,
};

const topology = [
  { service: 'notes', consumer: 'mark-seen', eventTypes: [EventTypes.ConfigUpdated] },
] as const;

const headers = { 'x-api-version': '0', 'content-type': 'application/json' };

describe('startService', () => {
  let database: TestDatabase;
  let bus: InProcessBus;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase('runtime');
    bus = new InProcessBus();
    service = await startService(notesService, {
      port: 0,
      databaseUrl: database.url,
      bus,
      env: { LOG_LEVEL: 'warn', OUTBOX_POLL_MS: '100', TIMER_POLL_MS: '100' },
      topology,
    });
  });

  afterAll(async () => {
    await service?.close();
    await bus?.close();
    await database?.drop();
  });

  it('is live and ready once its database and bus answer', async () => {
    const live = await fetch(`${service.url}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${service.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' }, bus: { status: 'up' } },
    });
  });

  it('relays an event written with a change to its consumer, with the request id of the change', async () => {
    const response = await fetch(`${service.url}/notes`, {
      method: 'POST',
      headers: { ...headers, 'x-request-id': 'req-note-1' },
      body: JSON.stringify({ id: 'note-1' }),
    });
    expect(response.status).toBe(201);
    const seenBy = await waitFor('the consumer to see the note', async () => {
      const [row] = await service.app
        .get(DataSource)
        .query(`SELECT seen_by FROM notes.notes WHERE id = 'note-1'`);
      return row?.seen_by ?? undefined;
    });
    expect(seenBy).toBe('req-note-1');
  });

  it('runs a handler in the inbox transaction: a redelivered event has its effect once', async () => {
    await fetch(`${service.url}/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 'note-twice' }),
    });
    const count = () =>
      service.app
        .get(DataSource)
        .query(`SELECT seen_count FROM notes.notes WHERE id = 'note-twice'`)
        .then((rows: Array<{ seen_count: number }>) => rows[0]?.seen_count ?? 0);
    await waitFor('the first delivery', async () => ((await count()) === 1 ? true : undefined));
    const [row] = await service.app
      .get(DataSource)
      .query(`SELECT event FROM notes.outbox WHERE subject = 'note-twice'`);
    // The same event again, as a broker redelivery after a lost ack would bring it.
    await bus.publish(row.event as CloudEvent);
    expect(await count()).toBe(1);
  });

  it('applies the HTTP kit: version header, validation, problem+json', async () => {
    const noVersion = await fetch(`${service.url}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as { code: string }).code).toBe('api_version.missing');

    const invalid = await fetch(`${service.url}/notes`, {
      method: 'POST',
      headers,
      body: '{"id": 5}',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toContain('application/problem+json');
    expect(((await invalid.json()) as { errors: unknown }).errors).toEqual([
      { path: 'id', message: expect.any(String) },
    ]);
  });

  it('describes its routes at /openapi.json', async () => {
    const response = await fetch(`${service.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/notes', '/notes/slow']));
  });

  it('serves Prometheus metrics: request durations by route, outbox backlog, overdue timers', async () => {
    await fetch(`${service.url}/notes/slow`, { headers });
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="\/notes\/slow"[^}]*status="200"[^}]*\} 1/,
    );
    expect(text).toMatch(/comanda_outbox_pending_events\{service="notes"\} \d+/);
    expect(text).toMatch(/comanda_timers_overdue\{service="notes"\} 0/);
    expect(text).toMatch(/comanda_outbox_retrying_events\{service="notes"\} 0/);
    expect(text).toMatch(/comanda_parked_messages\{kind="dead_letter",service="notes"\} 0/);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('refuses to start a service whose consumer is not in the topology, naming the entry to add', async () => {
    const other = new InProcessBus();
    try {
      await expect(
        startService(notesService, {
          port: 0,
          databaseUrl: database.url,
          bus: other,
          env: { LOG_LEVEL: 'silent' },
          topology: [],
        }),
      ).rejects.toThrow(
        "add { service: 'notes', consumer: 'mark-seen', eventTypes: ['config.updated'] } to CONSUMER_TOPOLOGY",
      );
    } finally {
      await other.close();
    }
  });

  it('refuses to start a service with a database but no bus', async () => {
    await expect(
      startService(notesService, { port: 0, databaseUrl: database.url, env: {} }),
    ).rejects.toThrow('needs databaseUrl and bus');
  });
});

/** A port nothing listens on now (taken from the system, then let go). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A database and a broker of the notes service's own, the broker behind a proxy the test
 * cuts; `dispose` closes the bus and removes them all (the service is the test's to close).
 */
async function notesBehindBrokerProxy(label: string) {
  const database = await createTestDatabase(label);
  const broker = await createTestBroker(label.replaceAll('_', '-'));
  const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(broker.url).port || 5672));
  const bus = new RabbitMqBus({
    url: proxy.urlFor(broker.url),
    exchange: broker.exchange,
    queuePrefix: broker.queuePrefix,
    reconnectDelayMs: 100,
  });
  const dispose = async () => {
    await bus.close();
    await proxy.stop();
    await disposeTestBroker(broker, [`${broker.queuePrefix}notes.mark-seen`]);
    await database.drop();
  };
  return { database, proxy, bus, dispose };
}

describe('a service started while its broker cannot be reached', () => {
  it('answers on its port at once and is ready, says the bus is down, and relays what was written meanwhile', async () => {
    const { database, proxy, bus, dispose } = await notesBehindBrokerProxy('runtime_broker_away');
    proxy.goDown();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = startService(notesService, {
      port,
      databaseUrl: database.url,
      bus,
      env: { LOG_LEVEL: 'silent', OUTBOX_POLL_MS: '100', TIMER_POLL_MS: '100' },
      topology,
    });
    let service: RunningService | undefined;
    try {
      await waitFor('the port to answer', async () => {
        const live = await fetch(`${url}/health/live`).catch(() => undefined);
        return live?.status === 200;
      });
      // Ready without the broker (ADR 0069): the bus shows as degraded, not as an error.
      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as Record<string, Record<string, unknown>>;
      expect(body.status).toBe('ok');
      expect(body.degraded.bus).toMatchObject({ status: 'down' });
      expect(body.error).toEqual({});
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(
        /^comanda_bus_connected\{service="notes"\} 0$/m,
      );
      // The API needs only the database: a change is taken, its event kept in the outbox.
      const created = await fetch(`${url}/notes`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ id: 'note-while-away' }),
      });
      expect(created.status).toBe(201);

      proxy.comeBack();
      service = await starting;
      await waitFor('the bus to show as up', async () => {
        const body = (await (await fetch(`${url}/health/ready`)).json()) as {
          info: Record<string, unknown>;
          degraded?: unknown;
        };
        return 'bus' in body.info && body.degraded === undefined;
      });
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(
        /^comanda_bus_connected\{service="notes"\} 1$/m,
      );
      await waitFor('the consumer to see the note written while the broker was away', async () => {
        const [row] = await service!.app
          .get(DataSource)
          .query(`SELECT seen_count FROM notes.notes WHERE id = 'note-while-away'`);
        return row?.seen_count === 1;
      });
    } finally {
      // The start waits for the broker: a failure above would else hold it open forever.
      proxy.comeBack();
      await (service ?? (await starting.catch(() => undefined)))?.close();
      await dispose();
    }
  });
});

describe('a service whose broker goes away under traffic', () => {
  it('stays ready while its relay waits on the broker, takes every write, and relays them all once it is back', async () => {
    const { database, proxy, bus, dispose } = await notesBehindBrokerProxy('runtime_broker_gone');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let service: RunningService | undefined;
    try {
      service = await startService(notesService, {
        port,
        databaseUrl: database.url,
        bus,
        // A relay round is "stuck" after three polls, at least 5 s; a publish waits up to the
        // bus's publish timeout (10 s) for the broker.
        env: { LOG_LEVEL: 'silent', OUTBOX_POLL_MS: '100', TIMER_POLL_MS: '100' },
        topology,
      });
      proxy.goDown();
      const notes: string[] = [];
      const readiness: Array<{ status: number; relay: unknown }> = [];
      // Longer than "stuck" and shorter than the publish timeout: a round waiting on the
      // broker spans it.
      const until = Date.now() + 8_000;
      while (Date.now() < until) {
        const id = `note-${notes.length}`;
        const created = await fetch(`${url}/notes`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ id }),
        });
        expect(created.status).toBe(201);
        notes.push(id);
        const ready = await fetch(`${url}/health/ready`);
        const body = (await ready.json()) as { details?: { messaging?: { relay?: unknown } } };
        readiness.push({ status: ready.status, relay: body.details?.messaging?.relay });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(readiness.filter(({ status }) => status !== 200)).toEqual([]);

      proxy.comeBack();
      const dataSource = service.app.get(DataSource);
      await waitFor(
        'the consumer to see every note written while the broker was away',
        async () => {
          const [row] = (await dataSource.query(
            `SELECT count(*)::int AS seen FROM notes.notes WHERE seen_count = 1`,
          )) as Array<{ seen: number }>;
          return row.seen === notes.length;
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      proxy.comeBack();
      await service?.close();
      await dispose();
    }
  }, 60_000);
});

@Module({})
class StatelessModule {}

describe('a service without a database', () => {
  it('gets no bus: its readiness does not follow the broker (a gateway pod stays in service)', async () => {
    // A broker that never answers: what a gateway pod saw while RabbitMQ was down.
    const unreachable = new RabbitMqBus({
      url: 'amqp://guest:guest@127.0.0.1:1',
      connectionName: 'comanda-stateless-test',
      reconnectDelayMs: 60_000,
    });
    try {
      const stateless: ServiceDefinition = {
        name: 'stateless',
        module: StatelessModule,
        security: false,
      };
      const service = await startService(stateless, {
        port: 0,
        bus: unreachable,
        env: { LOG_LEVEL: 'warn' },
      });
      try {
        const ready = await fetch(`${service.url}/health/ready`);
        expect(ready.status).toBe(200);
        const body = (await ready.json()) as { info: Record<string, unknown> };
        expect(body.info).not.toHaveProperty('bus');
      } finally {
        await service.close();
      }
    } finally {
      await unreachable.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request, then stops taking new ones', async () => {
    const database = await createTestDatabase('runtime_stop');
    const bus = new InProcessBus();
    try {
      const service = await startService(notesService, {
        port: 0,
        databaseUrl: database.url,
        bus,
        env: { LOG_LEVEL: 'warn' },
        topology,
      });
      const inFlight = fetch(`${service.url}/notes/slow`, { headers });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      await service.close();
      // Well under the keep-alive timeout an open connection would otherwise hold it for.
      expect(Date.now() - started).toBeLessThan(5_000);
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ finished: true });
      await expect(fetch(`${service.url}/health/live`)).rejects.toThrow();
    } finally {
      await bus.close();
      await database.drop();
    }
  });
});
