import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { StoreNotFoundError } from '../domain/order.errors';
import { StoreEntity } from './store.entity';

@Injectable()
export class StoreRepository {
  async get(tx: Tx, tenantId: string, storeId: string, forUpdate = false): Promise<StoreEntity> {
    const store = await this.find(tx, tenantId, storeId, forUpdate);
    if (!store) throw new StoreNotFoundError(storeId);
    return store;
  }

  find(tx: Tx, tenantId: string, storeId: string, forUpdate = false): Promise<StoreEntity | null> {
    return tx.findOne(StoreEntity, {
      where: { tenantId, storeId },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  async save(tx: Tx, store: StoreEntity): Promise<void> {
    await tx.save(StoreEntity, store);
  }
}
