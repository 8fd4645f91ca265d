import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Client } from 'pg';
import { CONSUMER_TOPOLOGY, consumerQueue } from '@comanda/contracts';

/**
 * The test harness of docs/architecture.md: real PostgreSQL and RabbitMQ from `DATABASE_URL` /
 * `AMQP_URL` when set (CI has both on 127.0.0.1), else the standard local ports when a
 * server answers there (so `npm test` works as is on a developer machine), else
 * Testcontainers when a Docker engine answers, else a clear error naming what is missing. Every suite gets its own database and
 * its own exchange and queue names, so suites run in parallel.
 */

const MISSING = (what: string, variable: string) =>
  new Error(
    `This test needs a real ${what}. Set ${variable} (e.g. ${
      variable === 'DATABASE_URL'
        ? 'postgres://postgres@127.0.0.1:5432/postgres'
        : 'amqp://guest:guest@127.0.0.1:5672'
    }) or run a Docker engine so Testcontainers can start one.`,
  );

let containerPostgresUrl: Promise<string> | undefined;
let containerAmqpUrl: Promise<string> | undefined;

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

/** True when something accepts TCP connections on 127.0.0.1:port within a second. */
function localPortAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

async function dockerAnswers(): Promise<boolean> {
  try {
    // Lazy: testcontainers is only loaded when no service URL is configured.
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** URL of the Postgres server (its maintenance database) the tests may create databases on. */
export async function postgresServerUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  containerPostgresUrl ??= (async () => {
    if (await localPortAnswers(5432)) return LOCAL_POSTGRES;
    if (!(await dockerAnswers())) throw MISSING('PostgreSQL server', 'DATABASE_URL');
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    return `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  })();
  return containerPostgresUrl;
}

export async function amqpServerUrl(): Promise<string> {
  if (process.env.AMQP_URL) return process.env.AMQP_URL;
  containerAmqpUrl ??= (async () => {
    if (await localPortAnswers(5672)) return LOCAL_AMQP;
    if (!(await dockerAnswers())) throw MISSING('RabbitMQ broker', 'AMQP_URL');
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('rabbitmq:3.13-alpine')
      .withExposedPorts(5672)
      .withWaitStrategy(Wait.forLogMessage(/Server startup complete/))
      .start();
    return `amqp://guest:guest@${container.getHost()}:${container.getMappedPort(5672)}`;
  })();
  return containerAmqpUrl;
}

export interface TestDatabase {
  /** URL of a database that exists for this suite only. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one suite; `drop()` removes it (call it in afterAll). */
export async function createTestDatabase(label = 'suite'): Promise<TestDatabase> {
  const serverUrl = await postgresServerUrl();
  const name = `comanda_test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdminClient(serverUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      ).then(() => undefined),
  };
}

async function withAdminClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect().catch((error: NodeJS.ErrnoException) => {
    const { host, port } = new URL(url);
    // One line instead of a driver stack: the test cannot run, and this is why.
    throw new Error(
      `PostgreSQL at ${host || port} does not answer (${error.code ?? error.message}): start it, or set DATABASE_URL to one that runs`,
    );
  });
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestBroker {
  url: string;
  /** A topic exchange name of this suite's own, in place of `comanda.events`. */
  exchange: string;
  /** Prefix for this suite's queue names. */
  queuePrefix: string;
}

export async function createTestBroker(label = 'suite'): Promise<TestBroker> {
  const url = await amqpServerUrl();
  const suffix = `${label.replace(/[^a-z0-9]/gi, '-').toLowerCase()}-${randomBytes(4).toString('hex')}`;
  return { url, exchange: `comanda.events.test.${suffix}`, queuePrefix: `test.${suffix}.` };
}

/**
 * Removes what a suite left on the broker: each consumer queue with its dead-letter queue
 * and its retry queues (the default delays unless given), and the suite's exchange.
 */
export async function disposeTestBroker(
  broker: TestBroker,
  queues: string[],
  retryDelaysMs: number[] = [1_000, 5_000, 30_000],
): Promise<void> {
  const { connect: connectAmqp } = await import('amqplib');
  const connection = await connectAmqp(broker.url);
  try {
    const channel = await connection.createChannel();
    for (const queue of queues) {
      for (const name of [
        queue,
        `${queue}.dlq`,
        ...retryDelaysMs.map((d) => `${queue}.retry.${d}`),
      ]) {
        await channel.deleteQueue(name);
      }
    }
    await channel.deleteExchange(broker.exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}

/**
 * Removes what a platform (or any service of it) left on a suite's broker: every service
 * declares every consumer queue of `CONSUMER_TOPOLOGY` at start, so all of them with their
 * dead-letter and retry queues; then the suite's own `extraQueues` and its exchange. Call it
 * once the suite is done with the broker (a platform restarted on it finds its queues).
 */
export async function disposePlatformBroker(
  broker: TestBroker,
  extraQueues: string[] = [],
): Promise<void> {
  await disposeTestBroker(broker, [
    ...CONSUMER_TOPOLOGY.map((entry) => `${broker.queuePrefix}${consumerQueue(entry)}`),
    ...extraQueues,
  ]);
}
