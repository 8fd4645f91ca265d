import { Injectable } from '@nestjs/common';
import { deferWrite, entityColumns, isUuid, sqlRows, type Tx } from '@comanda/persistence';
import type { DataSource } from 'typeorm';
import { BasketNotFoundError } from '../domain/order.errors';
import { BasketEntity } from './basket.entity';
import { OrderChargesEntity } from './order-charges.entity';
import { currentChargeValues } from './order-charges.repository';
import { StoreEntity } from './store.entity';

/** A basket with what pricing and checking it out needs, read together. */
export interface BasketInContext {
  basket: BasketEntity;
  /** Its store; null when the tenant removed it. */
  store: StoreEntity | null;
  /** The tenant's current `order-charges` values; undefined when it has none. */
  chargeValues: Record<string, unknown> | undefined;
  /** The database's clock when the basket was read (see `databaseNow`). */
  now: Date;
}

@Injectable()
export class BasketRepository {
  /** `getInContext`'s statement per data source: [plain, locked], built once. */
  private readonly inContext = new WeakMap<DataSource, [string, string]>();

  async get(tx: Tx, tenantId: string, basketId: string, forUpdate = false): Promise<BasketEntity> {
    const basket = isUuid(basketId)
      ? await tx.findOne(BasketEntity, {
          where: { tenantId, id: basketId },
          ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
        })
      : null;
    if (!basket) throw new BasketNotFoundError(basketId);
    return basket;
  }

  /**
   * The basket (locked for the rest of `tx` when `forUpdate`, as `get`), its store, the
   * tenant's charges and the database's clock in one statement: a checkout's reads in one
   * round trip instead of four.
   */
  async getInContext(
    tx: Tx,
    tenantId: string,
    basketId: string,
    forUpdate = false,
  ): Promise<BasketInContext> {
    if (!isUuid(basketId)) throw new BasketNotFoundError(basketId);
    const b = entityColumns(tx, BasketEntity, 'b');
    const s = entityColumns(tx, StoreEntity, 's');
    const c = entityColumns(tx, OrderChargesEntity, 'c');
    let statements = this.inContext.get(tx.connection);
    if (!statements) {
      const read = (basket: string) =>
        `SELECT ${b.select}, ${s.select}, ${c.select}, clock_timestamp() AS now
         FROM ${basket} b
         LEFT JOIN ${s.table} s ON s.tenant_id = b.tenant_id AND s.store_id = b.store_id
         LEFT JOIN ${c.table} c ON c.tenant_id = b.tenant_id`;
      // Locked in a subquery, which PostgreSQL does not flatten: the clock is then read once
      // the lock is held, not before a wait for it (see OrderRepository.getLocked).
      statements = [
        `${read(b.table)} WHERE b.tenant_id = $1 AND b.id = $2`,
        read(`(SELECT * FROM ${b.table} WHERE tenant_id = $1 AND id = $2 FOR UPDATE)`),
      ];
      this.inContext.set(tx.connection, statements);
    }
    const [row] = await sqlRows<Record<string, unknown> & { now: Date }>(
      tx,
      statements[forUpdate ? 1 : 0],
      [tenantId, basketId],
    );
    const basket = row && b.hydrate(row);
    if (!basket) throw new BasketNotFoundError(basketId);
    return {
      basket,
      store: s.hydrate(row),
      chargeValues: currentChargeValues(c.hydrate(row)),
      now: row.now,
    };
  }

  async save(tx: Tx, basket: BasketEntity): Promise<void> {
    await tx.save(BasketEntity, basket);
  }

  /**
   * The lines and discounts of a basket read locked in `tx` (`getInContext` with `forUpdate`),
   * as they now are: one UPDATE, sent with the transaction's next statement or its COMMIT
   * (ADR 0067).
   */
  async saveContents(tx: Tx, basket: BasketEntity): Promise<void> {
    await deferWrite(
      tx,
      `UPDATE ${entityColumns(tx, BasketEntity, 'b').table} SET lines = $1, discounts = $2
       WHERE tenant_id = $3 AND id = $4`,
      [JSON.stringify(basket.lines), JSON.stringify(basket.discounts), basket.tenantId, basket.id],
    );
  }
}
