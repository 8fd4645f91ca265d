import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { EventTypes } from '@comanda/contracts';
import {
  createTestBroker,
  createTestDatabase,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { openServiceDatabase, SCHEMA } from '../../outbox/test-support/messaging-test-env';
import { deadLetterQueueName, retryQueueName } from '../../rabbitmq/queue-names';
import { RabbitMqBus } from '../../rabbitmq/rabbitmq-bus';
import { BrokerAdmin } from '../../rabbitmq/test-support/broker-admin';
import { CRASH_WORKER } from './crash-worker';

const REPO = resolve(__dirname, '../../../../..');
const WORKER = join(__dirname, 'crash-worker.ts');

export interface WorkerOptions {
  /** Deliveries without completion before a message is parked (the worker's default: 3). */
  maxDeliveries?: number;
  /** Attempts without completion before a timer is dead (the worker's default: 3). */
  timerMaxAttempts?: number;
  /** The consumer's retry delays (the worker's default: `CRASH_WORKER.retryDelaysMs`). */
  retryDelaysMs?: readonly number[];
  /** Which life of the replica this is (1, the default, for the first start). */
  life?: number;
}

/**
 * One replica process, on RabbitMQ (`broker`) or, without a broker, in standalone mode: its
 * relay publishes to its own consumer on the in-process bus. `exited` settles when it ends,
 * however it ends.
 */
export function startWorker(
  db: TestDatabase,
  broker: TestBroker | undefined,
  options: WorkerOptions = {},
) {
  const child: ChildProcess = spawn(process.execPath, ['-r', './tools/register.js', WORKER], {
    cwd: REPO,
    env: {
      // The child inherits the test's environment (PATH, DATABASE_URL, ...), not a config.
      // eslint-disable-next-line no-restricted-syntax
      ...process.env,
      WORKER_DATABASE_URL: db.url,
      ...(broker
        ? {
            WORKER_BUS: 'rabbitmq',
            WORKER_AMQP_URL: broker.url,
            WORKER_EXCHANGE: broker.exchange,
            WORKER_QUEUE_PREFIX: broker.queuePrefix,
          }
        : { WORKER_BUS: 'in-process' }),
      WORKER_MAX_DELIVERIES: String(options.maxDeliveries ?? CRASH_WORKER.maxDeliveries),
      WORKER_TIMER_MAX_ATTEMPTS: String(options.timerMaxAttempts ?? CRASH_WORKER.timerMaxAttempts),
      WORKER_RETRY_DELAYS_MS: (options.retryDelaysMs ?? CRASH_WORKER.retryDelaysMs).join(','),
      WORKER_LIFE: String(options.life ?? 1),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // What the replica said last (Nest logs warnings and errors to stdout), for a failure.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let ended = false;
  const exited = new Promise<string>((done) =>
    child.on('exit', (code, signal) => {
      ended = true;
      done(`exit ${code ?? signal}: ${output.slice(-2_000)}`);
    }),
  );
  return { child, exited, hasEnded: () => ended, output: () => output };
}

/**
 * Like a supervisor: runs a replica, starts it again whenever it dies (each death must be a
 * SIGKILL, the crash the tests cause), until `settled` says everything is done. Returns how
 * many times a replica died. `stuck`, when given, names a state that can never settle (a
 * message parked that should not have been), so the test fails at once and says why.
 */
export async function superviseUntil(
  db: TestDatabase,
  broker: TestBroker | undefined,
  settled: () => Promise<boolean>,
  options: WorkerOptions & {
    maxRestarts?: number;
    stuck?: () => Promise<string | undefined>;
    /** The state to report when the replica neither settles nor dies in time. */
    explain?: () => Promise<unknown>;
  } = {},
): Promise<number> {
  const maxRestarts = options.maxRestarts ?? 12;
  let restarts = 0;
  let worker = startWorker(db, broker, { ...options, life: 1 });

  try {
    while (!(await settled())) {
      const stuck = await waitFor(
        'everything to settle or the replica to die',
        async () => (await options.stuck?.()) || worker.hasEnded() || (await settled()),
        // A replica boots, works and dies within seconds; on a loaded CI machine, much later.
        { timeoutMs: 150_000, intervalMs: 200 },
      ).catch(async (error: Error) => {
        const state = JSON.stringify(await options.explain?.().catch(String));
        throw new Error(
          `${error.message} after ${restarts} restarts; state: ${state}; the replica said: ${worker.output()}`,
        );
      });
      if (typeof stuck === 'string') throw new Error(`cannot settle: ${stuck}`);
      if (worker.hasEnded()) {
        const how = await worker.exited;
        if (!how.startsWith('exit SIGKILL')) throw new Error(`the replica ended otherwise: ${how}`);
        restarts += 1;
        if (restarts > maxRestarts) throw new Error(`still not settled after ${restarts} restarts`);
        worker = startWorker(db, broker, { ...options, life: restarts + 1 });
      }
    }
  } finally {
    worker.child.kill('SIGKILL');
    await worker.exited;
  }
  return restarts;
}

/** What a crash suite shares: its database and broker, and the crash worker's queue declared. */
export interface CrashSuite {
  db: TestDatabase;
  broker: TestBroker;
  admin: BrokerAdmin;
  /** The test's own connection to the service's schema. */
  observer: DataSource;
  /** The test's own bus, for publishing as another service would. */
  publisher: RabbitMqBus;
  /** The worker's queue, prefix included. */
  queue: string;
  dispose(): Promise<void>;
}

/** Sets up a crash suite: topology before traffic, as every service declares it at start. */
export async function startCrashSuite(label: string): Promise<CrashSuite> {
  const db = await createTestDatabase(label.replace(/-/g, '_'));
  const broker = await createTestBroker(label);
  const admin = await BrokerAdmin.connect(broker.url);
  const queue = `${broker.queuePrefix}${CRASH_WORKER.service}.${CRASH_WORKER.consumer}`;
  admin.track(
    queue,
    deadLetterQueueName(queue),
    ...CRASH_WORKER.retryDelaysMs.map((delay) => retryQueueName(queue, delay)),
  );
  const observer = await openServiceDatabase(db.url);
  await observer.query(`CREATE TABLE IF NOT EXISTS "${SCHEMA}"."kills" (name text PRIMARY KEY)`);
  const publisher = new RabbitMqBus({
    url: broker.url,
    exchange: broker.exchange,
    queuePrefix: broker.queuePrefix,
  });
  await publisher.declare([
    {
      queue: `${CRASH_WORKER.service}.${CRASH_WORKER.consumer}`,
      eventTypes: [EventTypes.OrderPlaced],
      retry: { delaysMs: [...CRASH_WORKER.retryDelaysMs] },
    },
  ]);
  return {
    db,
    broker,
    admin,
    observer,
    publisher,
    queue,
    dispose: async () => {
      await publisher.close();
      await admin.dispose(broker.exchange);
      await observer.destroy();
      await db.drop();
    },
  };
}

/** A crash suite of standalone mode: its database only (the bus lives in each replica). */
export interface InProcessCrashSuite {
  db: TestDatabase;
  /** The test's own connection to the service's schema. */
  observer: DataSource;
  dispose(): Promise<void>;
}

export async function startInProcessCrashSuite(label: string): Promise<InProcessCrashSuite> {
  const db = await createTestDatabase(label.replace(/-/g, '_'));
  const observer = await openServiceDatabase(db.url);
  await observer.query(`CREATE TABLE IF NOT EXISTS "${SCHEMA}"."kills" (name text PRIMARY KEY)`);
  return {
    db,
    observer,
    dispose: async () => {
      await observer.destroy();
      await db.drop();
    },
  };
}
