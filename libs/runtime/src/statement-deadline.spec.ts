import { Controller, Get, HttpCode, Module, Param, Post } from '@nestjs/common';
import { InProcessBus } from '@comanda/messaging';
import { sqlRows, UnitOfWork } from '@comanda/persistence';
import { Public } from '@comanda/security';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { RunningService, ServiceDefinition } from './service-definition';
import { startService } from './start-service';

const SCHEMA = 'stalling';
const DEADLINE_MS = 1000;

@Controller('entries')
class EntriesController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  @Get()
  @Public()
  async count(): Promise<{ entries: number }> {
    const [row] = await sqlRows<{ entries: number }>(
      this.dataSource,
      `SELECT count(*)::int AS entries FROM "${SCHEMA}".entries`,
      [],
    );
    return row;
  }

  @Post(':id')
  @Public()
  @HttpCode(200)
  write(@Param('id') id: string): Promise<{ id: string }> {
    return this.unitOfWork.run(async (tx) => {
      await sqlRows(tx, `INSERT INTO "${SCHEMA}".entries (id) VALUES ($1)`, [id]);
      return { id };
    });
  }
}

/** A read where the spec lists the statuses: the configuration group. */
@Controller('entities/:entity/entries')
class ConfigurationGroupEntriesController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @Public()
  async read(): Promise<{ n: number }> {
    const [row] = await sqlRows<{ n: number }>(this.dataSource, 'SELECT $1::int AS n', [3]);
    return row;
  }
}

@Module({ controllers: [EntriesController, ConfigurationGroupEntriesController] })
class EntriesModule {}

const entries: ServiceDefinition = {
  name: 'stalling',
  database: { schema: SCHEMA, entities: [], migrations: [] },
  module: EntriesModule,
};

/**
 * PostgreSQL stalls without closing its connections (a frozen server, a network that drops
 * packets): a statement it has not answered within DB_STATEMENT_DEADLINE_MS fails and its
 * connection is closed, so the request answers 503 at once rather than at the gateway's
 * upstream timeout, and its write is rolled back rather than committed once the server
 * answers again.
 */
describe('requests while the database stalls', () => {
  let database: TestDatabase;
  let direct: Client;
  let proxy: TcpProxy;
  let bus: InProcessBus;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase('db_stall');
    direct = new Client({ connectionString: database.url });
    await direct.connect();
    await direct.query(`CREATE SCHEMA "${SCHEMA}"`);
    await direct.query(`CREATE TABLE "${SCHEMA}".entries (id text PRIMARY KEY)`);
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    bus = new InProcessBus();
    service = await startService(entries, {
      port: 0,
      databaseUrl: proxy.urlFor(database.url),
      bus,
      env: {
        LOG_LEVEL: 'silent',
        DB_POOL_SIZE: '2',
        DB_STATEMENT_DEADLINE_MS: String(DEADLINE_MS),
      },
      topology: [],
    });
  });

  afterAll(async () => {
    proxy?.resume();
    await service?.close();
    await bus?.close();
    await proxy?.stop();
    await direct?.end();
    await database?.drop();
  });

  const call = async (method: 'GET' | 'POST', path: string) => {
    const started = Date.now();
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'x-api-version': '0' },
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, unknown>,
      ms: Date.now() - started,
    };
  };

  const stored = async (id: string): Promise<boolean> =>
    (await direct.query(`SELECT 1 FROM "${SCHEMA}".entries WHERE id = $1`, [id])).rowCount === 1;

  it('answers 503 within the deadline, rolls the write back, and serves again once it answers', async () => {
    expect(await call('POST', '/entries/before')).toMatchObject({ status: 200 });
    expect(await call('GET', '/entries')).toMatchObject({ status: 200, body: { entries: 1 } });

    proxy.stall();
    // Both pooled connections are caught by the deadline; then a new one cannot be opened.
    for (const [method, path] of [
      ['POST', '/entries/during'],
      ['GET', '/entries'],
      ['POST', '/entries/during'],
    ] as const) {
      const answer = await call(method, path);
      expect(answer).toMatchObject({
        status: 503,
        retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
        body: { status: 503, code: 'service.unavailable' },
      });
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(JSON.stringify(answer.body)).not.toMatch(/ETIMEDOUT|stall|deadline|5432|at /);
      // The deadline and one sweep (a statement), or the deadline to connect (a new
      // connection, the pool's others being caught by the service's pollers): never the
      // gateway's upstream timeout (30 s).
      expect(answer.ms).toBeLessThan(5 * DEADLINE_MS);
    }
    // The configuration group answers only the statuses the spec lists (ADR 0054).
    expect(await call('GET', '/entities/shop/entries')).toMatchObject({
      status: 500,
      body: { status: 500, code: 'service.unavailable' },
    });

    proxy.resume();
    await waitFor(
      'reads to succeed again',
      async () => (await call('GET', '/entries')).status === 200,
    );
    // What the stalled transaction sent reached the server with the closed connection behind
    // it: nothing of it was committed.
    expect(await stored('during')).toBe(false);
    expect(await call('POST', '/entries/after')).toMatchObject({ status: 200 });
    expect(await stored('after')).toBe(true);
    expect(await call('GET', '/entries')).toMatchObject({ status: 200, body: { entries: 2 } });
  }, 60_000);
});
