import { randomBytes, randomUUID } from 'node:crypto';
import { openDatabase, type Tx } from '@comanda/persistence';
import { schemaMigrations } from '@comanda/runtime';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { ordersService } from '../orders.service-definition';
import { OrderNotFoundError } from '../domain/order.errors';
import { anOrder } from '../testing/order.builder';
import { BasketEntity } from './basket.entity';
import { BasketRepository } from './basket.repository';
import { OrderEntity } from './order.entity';
import { OrderRepository } from './order.repository';

const HELD_MS = 300;

/**
 * A locked read that waited for its row: the database's clock it answers is the one after
 * the wait, as `databaseNow` after the locked read gave it, so the waiting transaction does
 * not stamp its moves earlier than the one it waited for.
 */
describe('locked reads with the database clock (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let holder: Client;
  const orders = new OrderRepository();
  const baskets = new BasketRepository();

  beforeAll(async () => {
    db = await createTestDatabase('orders_locked_reads');
    const database = ordersService.database;
    if (!database) throw new Error('the orders service has a database');
    dataSource = await openDatabase({
      url: db.url,
      schema: database.schema,
      entities: database.entities,
      migrations: schemaMigrations(ordersService, {
        COMANDA_SECRETS_KEY: randomBytes(32).toString('base64'),
      }),
    });
    holder = new Client({ connectionString: db.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await dataSource?.destroy();
    await db?.drop();
  });

  /** Holds `table`'s row `id` locked for HELD_MS; answers the clock just before it lets go. */
  async function holdRow(table: string, id: string): Promise<{ released: Promise<Date> }> {
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM orders.${table} WHERE id = $1 FOR UPDATE`, [id]);
    const released = (async () => {
      await holder.query(`SELECT pg_sleep(${HELD_MS / 1000})`);
      const { rows } = await holder.query<{ at: Date }>('SELECT clock_timestamp() AS at');
      await holder.query('COMMIT');
      return rows[0].at;
    })();
    return { released };
  }

  it('reads an order locked, with the clock taken once its lock was held', async () => {
    const order = anOrder().ready().build();
    await dataSource.getRepository(OrderEntity).save(order);
    const { released } = await holdRow('orders', order.id);

    const locked = await dataSource.transaction((tx: Tx) =>
      orders.getLocked(tx, order.tenantId, order.id),
    );

    expect(locked.order).toMatchObject({ id: order.id, tenantId: order.tenantId, status: 'ready' });
    expect(locked.order.createdAt).toEqual(order.createdAt);
    expect(locked.now.getTime()).toBeGreaterThanOrEqual((await released).getTime());
  });

  it('refuses an order of another tenant, or an id that names none, as not found', async () => {
    const order = anOrder().ready().build();
    await dataSource.getRepository(OrderEntity).save(order);
    for (const [tenantId, orderId] of [
      ['tenant-b', order.id],
      [order.tenantId, randomUUID()],
      [order.tenantId, 'not-a-uuid'],
    ]) {
      await expect(
        dataSource.transaction((tx: Tx) => orders.getLocked(tx, tenantId, orderId)),
      ).rejects.toBeInstanceOf(OrderNotFoundError);
    }
  });

  it('reads a basket locked in context, with the clock taken once its lock was held', async () => {
    const basket = Object.assign(new BasketEntity(), {
      id: randomUUID(),
      tenantId: 'tenant-a',
      storeId: 'store-1',
      fulfillment: 'pickup',
      currency: 'CHF',
      requestedReadyTime: null,
      guest: { name: 'Guest', email: 'guest@example.com', phone: '1' },
      paymentRequest: null,
      lines: [],
      discounts: [],
      orderId: null,
      createdAt: new Date(),
    });
    await dataSource.getRepository(BasketEntity).insert(basket);
    const { released } = await holdRow('baskets', basket.id);

    const read = await dataSource.transaction((tx: Tx) =>
      baskets.getInContext(tx, basket.tenantId, basket.id, true),
    );

    expect(read.basket).toMatchObject({ id: basket.id, storeId: 'store-1' });
    expect(read.store).toBeNull();
    expect(read.now.getTime()).toBeGreaterThanOrEqual((await released).getTime());
  });
});
