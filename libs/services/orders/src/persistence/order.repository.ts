import { Injectable } from '@nestjs/common';
import { deferWrite, entityColumns, isUuid, sqlRows, type Tx } from '@comanda/persistence';
import type { DataSource } from 'typeorm';
import { OrderNotFoundError } from '../domain/order.errors';
import type { OrderStatus } from '../domain/order';
import { BasketEntity } from './basket.entity';
import { OrderEntity } from './order.entity';

/** An order read locked, and the database's clock once its lock was held. */
export interface LockedOrder {
  order: OrderEntity;
  now: Date;
}

@Injectable()
export class OrderRepository {
  /** getLocked's statement, built once per database. */
  private readonly lockedReads = new WeakMap<DataSource, string>();

  /** The order, as read (a state change reads it with `getLocked`). */
  async get(tx: Tx, tenantId: string, orderId: string): Promise<OrderEntity> {
    const order = await this.find(tx, tenantId, orderId);
    if (!order) throw new OrderNotFoundError(orderId);
    return order;
  }

  /**
   * The order locked for the rest of `tx`, and the database's clock once the lock is held, in
   * one statement (one round trip instead of two, as `get` and `databaseNow`). The clock is
   * read outside the locking subquery, which PostgreSQL does not flatten, so it is evaluated
   * after a wait for the lock: a top-level `clock_timestamp()` beside `FOR UPDATE` is read
   * before the wait, and would stamp the order's moves earlier than those of the transaction
   * it waited for.
   */
  async getLocked(tx: Tx, tenantId: string, orderId: string): Promise<LockedOrder> {
    if (!isUuid(orderId)) throw new OrderNotFoundError(orderId);
    const o = entityColumns(tx, OrderEntity, 'o');
    let text = this.lockedReads.get(tx.connection);
    if (!text) {
      text = `SELECT ${o.select}, clock_timestamp() AS now
       FROM (SELECT * FROM ${o.table} WHERE tenant_id = $1 AND id = $2 FOR UPDATE) o`;
      this.lockedReads.set(tx.connection, text);
    }
    const [row] = await sqlRows<Record<string, unknown> & { now: Date }>(tx, text, [
      tenantId,
      orderId,
    ]);
    const order = row && o.hydrate(row);
    if (!order) throw new OrderNotFoundError(orderId);
    return { order, now: row.now };
  }

  find(tx: Tx, tenantId: string, orderId: string, forUpdate = false): Promise<OrderEntity | null> {
    if (!isUuid(orderId)) return Promise.resolve(null);
    return tx.findOne(OrderEntity, {
      where: { tenantId, id: orderId },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /**
   * The order as it now stands, over its row. Every caller read it locked in `tx` (`get` with
   * `forUpdate`), so the row exists and nothing else changed it: one UPDATE without `save`'s
   * read to find what changed, sent with the transaction's next statement or its COMMIT
   * (ADR 0067).
   */
  async save(tx: Tx, order: OrderEntity): Promise<void> {
    const { text, values } = entityColumns(tx, OrderEntity, 'o').update(order);
    await deferWrite(tx, text, values);
  }

  /**
   * A new order: one INSERT, without `save`'s read of a row that cannot exist yet (and
   * without a query builder: a checkout's hottest write). The basket it was checked out from
   * is marked in the same statement (one round trip less per checkout). Its id is new and the
   * basket is locked: nothing here can be refused but by a fault, so it goes out with the
   * checkout's COMMIT (ADR 0067).
   */
  async insert(tx: Tx, order: OrderEntity, basket: BasketEntity): Promise<void> {
    const { text, values } = entityColumns(tx, OrderEntity, 'o').insert(order);
    const baskets = entityColumns(tx, BasketEntity, 'b').table;
    const next = values.length;
    await deferWrite(
      tx,
      `WITH checked_out AS (
         UPDATE ${baskets} SET order_id = $${next + 1} WHERE id = $${next + 2} AND tenant_id = $${next + 3}
       )
       ${text}`,
      [...values, order.id, basket.id, basket.tenantId],
    );
    basket.orderId = order.id;
  }

  /** A page of the tenant's orders in one status, oldest first, after the cursor. */
  async page(
    tx: Tx,
    tenantId: string,
    status: OrderStatus | undefined,
    after: { createdAt: Date; id: string } | undefined,
    limit: number,
  ): Promise<OrderEntity[]> {
    const query = tx
      .createQueryBuilder(OrderEntity, 'o')
      .where('o.tenant_id = :tenantId', { tenantId })
      .orderBy('o.created_at', 'ASC')
      .addOrderBy('o.id', 'ASC')
      .take(limit);
    if (status) query.andWhere('o.status = :status', { status });
    if (after) {
      query.andWhere('(o.created_at, o.id) > (:createdAt, :id)', {
        createdAt: after.createdAt,
        id: after.id,
      });
    }
    return query.getMany();
  }
}
