/**
 * The relay half of the hand-built chain that `bench/checkout-to-pos.ts` measures the
 * platform against: LISTEN on a channel; on each notification read the row it names and
 * publish it with amqplib on a confirm channel (persistent, to the same kind of durable
 * topic exchange as the platform's), nothing else. The writer (insert + NOTIFY in one
 * transaction) and the consumer live in the bench process. Run as a child process, like
 * the platform's relay runs in the platform's process; tells its parent `ready` over IPC
 * once it listens, and stops when the parent disconnects.
 *
 *   DATABASE_URL=… AMQP_URL=… AMQP_EXCHANGE=… node -r ./tools/register.js bench/support/notify-chain.ts
 */
import { connect } from 'amqplib';
import { Client, Pool } from 'pg';

/** Both made by the bench process (`bench/checkout-to-pos.ts`) before it starts this one. */
const CHAIN_CHANNEL = 'bench_chain';
const CHAIN_TABLE = 'bench_chain.outbox';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = required('DATABASE_URL');
  const exchange = required('AMQP_EXCHANGE');
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const listener = new Client({ connectionString: databaseUrl });
  const connection = await connect(required('AMQP_URL'));
  const channel = await connection.createConfirmChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });

  let failures = 0;
  const relay = async (id: string): Promise<void> => {
    const { rows } = await pool.query<{ routing_key: string; event: string }>({
      name: 'chain-read',
      text: `SELECT routing_key, event::text AS event FROM ${CHAIN_TABLE} WHERE id = $1`,
      values: [id],
    });
    if (rows.length === 0) throw new Error(`row ${id} not found`);
    await new Promise<void>((resolve, reject) =>
      channel.publish(
        exchange,
        rows[0].routing_key,
        Buffer.from(rows[0].event),
        { persistent: true, contentType: 'application/cloudevents+json' },
        (error) =>
          error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      ),
    );
  };
  listener.on('notification', (notification) => {
    relay(notification.payload ?? '').catch((error: unknown) => {
      failures++;
      console.error(error);
    });
  });
  await listener.connect();
  await listener.query(`LISTEN ${CHAIN_CHANNEL}`);
  process.send?.({ ready: true, url: '' });
  process.on('disconnect', () => {
    if (failures > 0) console.error(`${failures} publishes failed`);
    void (async () => {
      await listener.end();
      await channel.close();
      await connection.close();
      await pool.end();
    })().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
