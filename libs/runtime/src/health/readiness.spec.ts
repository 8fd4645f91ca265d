import { Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { InProcessBus, MessagingLifecycle, type LoopState } from '@comanda/messaging';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import type { RunningService, ServiceDefinition } from '../service-definition';
import { startService } from '../start-service';

/** A loop of the service's own (a sender), in a state the test sets. */
let senderState: LoopState = 'ok';

@Injectable()
class WatchedSender implements OnApplicationBootstrap {
  constructor(private readonly messaging: MessagingLifecycle) {}

  onApplicationBootstrap(): void {
    this.messaging.watch('sender', () => senderState);
  }
}

@Module({ providers: [WatchedSender] })
class WatchingModule {}

const ledger: ServiceDefinition = {
  name: 'ledger',
  database: { schema: 'ledger', entities: [], migrations: [] },
  module: WatchingModule,
  security: false,
};

interface Readiness {
  status: 'ok' | 'error';
  error: Record<string, { status: string; relay?: string; timers?: string; sender?: string }>;
}

/**
 * Readiness as an orchestrator sees it, on a real service whose database connections pass
 * through a proxy the test controls: when the database stops answering (a stalled network,
 * a frozen server), the outbox relay and the timer poller hang in their round; readiness
 * says so, and turns green again once the database answers.
 */
describe('readiness of a service whose messaging loops are stuck', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let bus: InProcessBus;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase('readiness');
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    bus = new InProcessBus();
    service = await startService(ledger, {
      port: 0,
      databaseUrl: proxy.urlFor(database.url),
      bus,
      env: { LOG_LEVEL: 'silent', OUTBOX_POLL_MS: '200', TIMER_POLL_MS: '200', DB_POOL_SIZE: '4' },
      topology: [],
    });
  });

  afterAll(async () => {
    proxy?.resume();
    await service?.close();
    await bus?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const readiness = async (): Promise<{ status: number; body: Readiness }> => {
    const response = await fetch(`${service.url}/health/ready`);
    return { status: response.status, body: (await response.json()) as Readiness };
  };

  it('turns red while the relay and the timer poller hang on a stalled database, and green once it answers again', async () => {
    await waitFor('the service to be ready', async () => (await readiness()).status === 200);

    proxy.stall();
    const red = await waitFor(
      'readiness to report the stuck loops',
      async () => {
        const answer = await readiness();
        const loops = answer.body.error.messaging;
        return answer.status === 503 && loops?.relay === 'stuck' && loops?.timers === 'stuck'
          ? answer.body
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(red).toMatchObject({
      status: 'error',
      error: {
        messaging: {
          status: 'down',
          message: 'a work loop (outbox relay, timer poller or sender) is failing or stuck',
        },
      },
    });

    proxy.resume();
    const green = await waitFor(
      'readiness to turn green again',
      async () => {
        const answer = await readiness();
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(green).toMatchObject({ status: 'ok', error: {} });
  });

  it("turns red while a loop the service watches (a sender's) fails, naming it", async () => {
    await waitFor('the service to be ready', async () => (await readiness()).status === 200);
    expect((await readiness()).body).toMatchObject({ status: 'ok' });
    senderState = 'failing';
    try {
      const red = await readiness();
      expect(red.status).toBe(503);
      expect(red.body.error.messaging).toMatchObject({ status: 'down', sender: 'failing' });
    } finally {
      senderState = 'ok';
    }
    expect((await readiness()).status).toBe(200);
  });
});
