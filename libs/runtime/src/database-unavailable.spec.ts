import { Controller, Get, HttpCode, Module, Param, Post } from '@nestjs/common';
import { InProcessBus } from '@comanda/messaging';
import { lastRefusedForDatabaseAt, sqlRows, UnitOfWork } from '@comanda/persistence';
import { Public } from '@comanda/security';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import { Client } from 'pg';
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

  /** Needs `ledger.entries` (the stall test makes it). */
  @Post(':id')
  @Public()
  @HttpCode(200)
  enter(@Param('id') id: string): Promise<{ id: string }> {
    return this.unitOfWork.run(async (tx) => {
      await sqlRows(tx, 'INSERT INTO ledger.entries (id) VALUES ($1)', [id]);
      return { id };
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

async function callService(service: RunningService, method: 'GET' | 'POST', path: string) {
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
}

/** A 503 that says "try again" and nothing of the error behind it. */
function expectUnavailable(answer: Awaited<ReturnType<typeof callService>>): void {
  expect(answer).toMatchObject({
    status: 503,
    retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
    body: { status: 503, code: 'service.unavailable' },
  });
  expect(answer.type).toMatch(/^application\/problem\+json/);
  expect(JSON.stringify(answer.body)).not.toMatch(/ECONN|ETIMEDOUT|terminated|stall|5432|at /);
}

/** The ledger service on a database of its own, reached through a proxy the test controls. */
interface LedgerBehindProxy {
  database: TestDatabase;
  proxy: TcpProxy;
  service: RunningService;
  close(): Promise<void>;
}

async function startLedgerBehindProxy(
  name: string,
  env: Record<string, string> = {},
): Promise<LedgerBehindProxy> {
  const database = await createTestDatabase(name);
  const target = new URL(database.url);
  const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  const bus = new InProcessBus();
  const stopAll = async (service?: RunningService) => {
    proxy.comeBack();
    proxy.resume();
    await service?.close();
    await bus.close();
    await proxy.stop();
    await database.drop();
  };
  try {
    const service = await startService(ledger, {
      port: 0,
      databaseUrl: proxy.urlFor(database.url),
      bus,
      env: { LOG_LEVEL: 'silent', DB_POOL_SIZE: '2', ...env },
      topology: [],
    });
    return { database, proxy, service, close: () => stopAll(service) };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * A request that needs the database while PostgreSQL cannot be reached (a restart, a
 * failover, a cut network) answers 503 with Retry-After: the caller can tell "try again"
 * from a fault of its own request or a bug (500).
 */
describe('requests while the database is unreachable', () => {
  let ledgerBehindProxy: LedgerBehindProxy;
  let proxy: TcpProxy;
  let service: RunningService;

  beforeAll(async () => {
    ledgerBehindProxy = await startLedgerBehindProxy('db_unavailable');
    ({ proxy, service } = ledgerBehindProxy);
  });
  afterAll(() => ledgerBehindProxy?.close());

  const call = (method: 'GET' | 'POST', path = '/ledger') => callService(service, method, path);

  it('answers 503 service.unavailable with Retry-After, and serves again once it is back', async () => {
    expect((await call('GET')).body).toEqual({ n: 1 });
    expect((await call('POST')).body).toEqual({ n: 2 });

    // The pool's open connections are cut, and new ones are refused.
    proxy.goDown();
    const before = Date.now();
    for (const method of ['GET', 'POST', 'GET', 'POST'] as const) {
      expectUnavailable(await call(method));
    }
    // Noted for the timer poller: deadlines waiting for these callers get a grace (ADR 0060).
    expect(lastRefusedForDatabaseAt()).toBeGreaterThanOrEqual(before);

    // Prometheus keeps its scrape: every metric, the database's counts unknown.
    const metrics = await fetch(`${service.url}/metrics`);
    expect(metrics.status).toBe(200);
    const scraped = await metrics.text();
    // Spelt as the exposition format spells it (prom-client's own "Nan" is rewritten).
    expect(scraped).toMatch(/^comanda_outbox_pending_events\{service="ledger"\} NaN$/m);
    expect(scraped).toMatch(
      /^comanda_parked_messages\{kind="dead_letter",service="ledger"\} NaN$/m,
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

/**
 * PostgreSQL stalls without closing its connections (a frozen server, a network that drops
 * packets): a statement it has not answered within DB_STATEMENT_DEADLINE_MS fails and its
 * connection is closed (ADR 0057), so the request answers 503 at once rather than at the
 * gateway's upstream timeout, and its write is rolled back rather than committed once the
 * server answers again.
 */
describe('requests while the database stalls', () => {
  const deadlineMs = 1000;
  let ledgerBehindProxy: LedgerBehindProxy;
  let direct: Client;
  let proxy: TcpProxy;
  let service: RunningService;

  beforeAll(async () => {
    ledgerBehindProxy = await startLedgerBehindProxy('db_stall', {
      DB_STATEMENT_DEADLINE_MS: String(deadlineMs),
    });
    ({ proxy, service } = ledgerBehindProxy);
    // Straight to the server, past the proxy: what it holds, whatever the proxy does.
    direct = new Client({ connectionString: ledgerBehindProxy.database.url });
    await direct.connect();
    await direct.query('CREATE TABLE ledger.entries (id text PRIMARY KEY)');
  });

  afterAll(async () => {
    await direct?.end();
    await ledgerBehindProxy?.close();
  });

  const call = (method: 'GET' | 'POST', path: string) => callService(service, method, path);
  const stored = async (id: string): Promise<boolean> =>
    (await direct.query('SELECT 1 FROM ledger.entries WHERE id = $1', [id])).rowCount === 1;
  /** Sessions of the service with a transaction open on the server. */
  const openTransactions = async (): Promise<number> =>
    (
      await direct.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'comanda-ledger'
            AND state LIKE 'idle in transaction%'`,
      )
    ).rowCount ?? 0;

  it('answers 503 within the deadline and the server rolls back the write it ran', async () => {
    expect(await call('POST', '/ledger/before')).toMatchObject({ status: 200 });

    // The INSERT reaches the server and runs in its transaction; its answer never comes back.
    proxy.holdAnswersAfter('during');
    const answer = await call('POST', '/ledger/during');
    expectUnavailable(answer);
    // The deadline and two sweeps: never the gateway's upstream timeout (30 s).
    expect(answer.ms).toBeLessThan(5 * deadlineMs);
    // The connection was closed under the open transaction: the server rolled it back.
    await waitFor('the transaction to end', async () => (await openTransactions()) === 0);
    expect(await stored('during')).toBe(false);
    expect(await stored('before')).toBe(true);
    proxy.resume();
    expect(await call('POST', '/ledger/after-hold')).toMatchObject({ status: 200 });
  }, 60_000);

  it('answers 503 while nothing comes back at all, and serves again once it answers', async () => {
    proxy.stall();
    // Pooled connections are caught by the deadline (the service's pollers hold them now and
    // then), and a new one cannot be opened within it.
    for (const [method, path] of [
      ['POST', '/ledger/stalled'],
      ['GET', '/ledger'],
      ['POST', '/ledger/stalled'],
    ] as const) {
      const answer = await call(method, path);
      expectUnavailable(answer);
      expect(answer.ms).toBeLessThan(5 * deadlineMs);
    }
    // The configuration group answers only the statuses the spec lists (ADR 0054).
    expect(await call('GET', '/entities/shop/ledger')).toMatchObject({
      status: 500,
      body: { status: 500, code: 'service.unavailable' },
    });

    proxy.resume();
    await waitFor(
      'reads to succeed again',
      async () => (await call('GET', '/ledger')).status === 200,
    );
    expect(await call('POST', '/ledger/after')).toMatchObject({ status: 200 });
    expect(await stored('after')).toBe(true);
  }, 60_000);
});
