import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { StoreEntity } from '../../persistence/store.entity';
import { StoreRepository } from '../../persistence/store.repository';

@Injectable()
export class ReadStore {
  constructor(private readonly stores: StoreRepository) {}

  execute(tx: Tx, tenantId: string, storeId: string): Promise<StoreEntity> {
    return this.stores.get(tx, tenantId, storeId);
  }
}
