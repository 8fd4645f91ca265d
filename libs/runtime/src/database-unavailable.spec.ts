import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { InProcessBus } from '@comanda/messaging';
import { sqlRows, UnitOfWork } from '@comanda/persistence';
import { Public } from '@comanda/security';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { DataSource } from 'typeorm';
import type { RunningService, ServiceDefinition } from './service-definition';
import { startService } from './start-service';

@Controller('ledger')
class LedgerController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  @Get()
  @Public()
  async read(): Promise<{ n: number }> {
    const [row] = await sqlRows<{ n: number }>(this.dataSource, 'SELECT $1::int AS n', [1]);
    return row;
  }

  @Post()
  @Public()
  @HttpCode(200)
  write(): Promise<{ n: number }> {
    return this.unitOfWork.run(async (tx) => {
      const [row] = await sqlRows<{ n: number }>(tx, 'SELECT $1::int AS n', [2]);
      return row;
    });
  }
}

/** A read where the spec lists the statuses: the configuration group. */
@Controller('entities/:entity/ledger')
class ConfigurationGroupLedgerController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @Public()
  async read(): Promise<{ n: number }> {
    const [row] = await sqlRows<{ n: number }>(this.dataSource, 'SELECT $1::int AS n', [3]);
    return row;
  }
}

@Module({ controllers: [LedgerController, ConfigurationGroupLedgerController] })
class LedgerModule {}

const ledger: ServiceDefinition = {
  name: 'ledger',
  database: { schema: 'ledger', entities: [], migrations: [] },
  module: LedgerModule,
};

/**
 * A request that needs the database while PostgreSQL cannot be reached (a restart, a
 * failover, a cut network) answers 503 with Retry-After: the caller can tell "try again"
 * from a fault of its own request or a bug (500).
 */
describe('requests while the database is unreachable', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let bus: InProcessBus;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase('db_unavailable');
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    bus = new InProcessBus();
    service = await startService(ledger, {
      port: 0,
      databaseUrl: proxy.urlFor(database.url),
      bus,
      env: { LOG_LEVEL: 'silent', DB_POOL_SIZE: '2' },
      topology: [],
    });
  });

  afterAll(async () => {
    proxy?.comeBack();
    await service?.close();
    await bus?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const call = async (method: 'GET' | 'POST', path = '/ledger') => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'x-api-version': '0' },
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  it('answers 503 service.unavailable with Retry-After, and serves again once it is back', async () => {
    expect((await call('GET')).body).toEqual({ n: 1 });
    expect((await call('POST')).body).toEqual({ n: 2 });

    // The pool's open connections are cut, and new ones are refused.
    proxy.goDown();
    for (const method of ['GET', 'POST', 'GET', 'POST'] as const) {
      const answer = await call(method);
      expect(answer).toMatchObject({
        status: 503,
        retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
        body: { status: 503, code: 'service.unavailable' },
      });
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(JSON.stringify(answer.body)).not.toMatch(/ECONN|terminated|5432|at /);
    }

    // Prometheus keeps its scrape: every metric, the database's counts unknown.
    const metrics = await fetch(`${service.url}/metrics`);
    expect(metrics.status).toBe(200);
    const scraped = await metrics.text();
    // prom-client writes NaN as "Nan", which Prometheus parses (case does not matter).
    expect(scraped).toMatch(/^comanda_outbox_pending_events\{service="ledger"\} NaN$/im);
    expect(scraped).toMatch(
      /^comanda_parked_messages\{kind="dead_letter",service="ledger"\} NaN$/im,
    );
    expect(scraped).toMatch(/^process_cpu_user_seconds_total/m);

    // The configuration group answers only the statuses the spec lists (ADR 0054).
    expect(await call('GET', '/entities/shop/ledger')).toMatchObject({
      status: 500,
      retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
      body: { status: 500, code: 'service.unavailable' },
    });

    proxy.comeBack();
    await waitFor('reads to succeed again', async () => (await call('GET')).status === 200);
    expect((await call('GET', '/entities/shop/ledger')).body).toEqual({ n: 3 });
    expect(await call('POST')).toMatchObject({ status: 200, body: { n: 2 } });
  });
});
