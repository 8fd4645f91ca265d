import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '@comanda/platform';
import {
  createTestBroker,
  createTestDatabase,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import { ROOT } from '../standalone/standalone-process';

interface LogLine {
  level: number;
  service: string;
  msg: string;
}

/** One service's own entry, started as a supervisor would, its output collected. */
function spawnService(name: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['-r', './tools/register.js', `apps/${name}/src/main.ts`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

/** Runs a service that is expected to stop; resolves with its exit code and output. */
async function runService(
  name: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const service = spawnService(name, env);
  const code = await service.exited;
  return { code, output: service.output() };
}

/** The JSON lines of `output`. */
function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

function errors(output: string): LogLine[] {
  return logLines(output).filter((line) => line.level >= 50);
}

/**
 * PostgreSQL in front of which only the first `allowed` connections get through: the rest
 * are refused as a full server refuses them (FATAL 53300, too many clients).
 */
function crowdedPostgres(target: URL, allowed: number): Promise<{ port: number; server: Server }> {
  const refusal = (() => {
    const fields = Buffer.from('SFATAL\0VFATAL\0C53300\0Msorry, too many clients already\0\0');
    const head = Buffer.alloc(5);
    head.write('E', 0);
    head.writeInt32BE(fields.length + 4, 1);
    return Buffer.concat([head, fields]);
  })();
  let open = 0;
  const server = createServer((client: Socket) => {
    client.on('error', () => undefined);
    if (open >= allowed) {
      client.once('data', () => client.end(refusal));
      return;
    }
    open++;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
    client.once('close', () => {
      open--;
      upstream.destroy();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, server });
    });
  });
}

/**
 * A service run alone (distributed mode) at start: one that cannot start says why in one line
 * of its log format and exits 1; one that starts with something missing says so once.
 */
describe('a service run alone, at start', () => {
  let database: TestDatabase;
  let broker: TestBroker;
  let base: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('start_failures');
    broker = await createTestBroker('start-failures');
    base = {
      DATABASE_URL: database.url,
      AMQP_URL: broker.url,
      AMQP_EXCHANGE: broker.exchange,
      AMQP_QUEUE_PREFIX: broker.queuePrefix,
      COMANDA_SECRETS_KEY: randomBytes(32).toString('base64'),
    };
  });
  afterAll(() => database?.drop());

  it('names a bad setting of its own before it opens anything, never quoting a key', async () => {
    const { code, output } = await runService('auth', {
      ...base,
      PORT: String(await freePort()),
      AUTH_KEY_ENCRYPTION_KEY: 'short',
    });
    expect(code).toBe(1);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain('short');
    expect(output).not.toContain('connected to RabbitMQ');
    expect(errors(output).map((line) => line.msg)).toEqual([
      'invalid setting AUTH_KEY_ENCRYPTION_KEY=<not shown: 5 characters> (must be 32 bytes in base64)',
    ]);
  }, 60_000);

  it('says once why it refuses to start when a check inside the service fails', async () => {
    // Keys missing: refused by the auth module's providers, inside Nest's start.
    const { code, output } = await runService('auth', { ...base, PORT: String(await freePort()) });
    expect(code).toBe(1);
    expect(output).not.toMatch(/^\s+at /m);
    expect(errors(output).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^the auth service refuses to start without AUTH_KEY_ENCRYPTION_KEY/),
    ]);
  }, 60_000);

  it('says the database refused it when that happens after the app was built', async () => {
    // Enough connections to migrate and build the app; its loops then find the server full.
    const crowded = await crowdedPostgres(new URL(database.url), 3);
    try {
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String(crowded.port);
      const { code, output } = await runService('orders', {
        ...base,
        DATABASE_URL: url.toString(),
        PORT: String(await freePort()),
      });
      expect(code).toBe(1);
      const last = errors(output).at(-1);
      expect(last).toMatchObject({
        service: 'orders',
        msg: 'the database at DATABASE_URL refused (53300): sorry, too many clients already',
      });
    } finally {
      await new Promise((done) => crowded.server.close(done));
    }
  }, 60_000);

  it.each([
    ['a wrong password', (url: URL) => (url.password = 'not-the-password'), 'login refused'],
    [
      'a virtual host that does not exist',
      (url: URL) => (url.pathname = '/nowhere'),
      'virtual host refused',
    ],
  ])(
    'exits at once, in one line, when RabbitMQ refuses it for good (%s)',
    async (_case, spoil, reason) => {
      const url = new URL(broker.url);
      spoil(url);
      const { code, output } = await runService('orders', {
        ...base,
        AMQP_URL: url.toString(),
        PORT: String(await freePort()),
      });
      expect(code).toBe(1);
      expect(output).not.toContain('not-the-password');
      // One line: the refusal, not also a "retrying" before it.
      expect(errors(output)).toHaveLength(1);
      const last = errors(output).at(-1);
      expect(last?.service).toBe('orders');
      expect(last?.msg).toMatch(
        new RegExp(
          `^RabbitMQ at .* refused the connection \\(${reason}.*\\): check the user, password and virtual host of AMQP_URL$`,
        ),
      );
    },
    60_000,
  );

  it('the gateway with service URLs unset says so once, and starts without a broker', async () => {
    const port = await freePort();
    const gateway = await startListening('gateway', {
      PORT: String(port),
      // AMQP_URL set as Kubernetes sets it for every pod: the gateway does not use it.
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
      AUTH_URL: 'http://127.0.0.1:1',
      CONFIG_STORE_URL: 'http://127.0.0.1:1',
    });
    try {
      expect(lines(gateway.output(), 40).map((line) => line.msg)).toEqual([
        'no upstream for PLUGIN_REGISTRY_URL, ORDERS_URL, PAYMENTS_URL, NOTIFICATIONS_URL: their paths answer 404 until it is set',
      ]);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(ready.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  }, 60_000);

  it('auth without COMANDA_ADMIN_CLIENT_SECRET says it makes no admin client', async () => {
    const auth = await startListening('auth', {
      ...base,
      PORT: String(await freePort()),
      AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      AUTH_SECRET_PEPPER: randomBytes(32).toString('base64'),
    });
    try {
      expect(lines(auth.output(), 30).map((line) => line.msg)).toContain(
        'COMANDA_ADMIN_CLIENT_SECRET is not set: no platform admin client is made or updated (an existing one keeps its secret)',
      );
    } finally {
      await auth.stop();
    }
  }, 60_000);
});

/** The JSON lines of `output` at `level`. */
function lines(output: string, level: number): LogLine[] {
  return logLines(output).filter((line) => line.level === level);
}

/** Starts one service's own entry and waits until it listens; `stop` sends SIGTERM. */
async function startListening(
  name: string,
  env: Record<string, string>,
): Promise<{ output(): string; stop(): Promise<void> }> {
  const { child, output, exited } = spawnService(name, env);
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(`${name} listening`, async () => output().includes('listening on port'));
  } catch (error) {
    await stop();
    throw error;
  }
  return { output, stop };
}
