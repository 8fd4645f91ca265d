import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { MappingDetails } from '../../domain/mapping-details';
import { StoreEntity } from '../../persistence/store.entity';
import { StoreRepository } from '../../persistence/store.repository';

export interface SaveStoreCommand {
  tenantId: string;
  storeId: string;
  name: string;
  currency: string;
  mappingDetails: MappingDetails;
  paymentMerchantId?: string;
}

/** Creates or replaces a store; its menu stays as it was. */
@Injectable()
export class SaveStore {
  constructor(private readonly stores: StoreRepository) {}

  async execute(tx: Tx, command: SaveStoreCommand): Promise<StoreEntity> {
    const existing = await this.stores.find(tx, command.tenantId, command.storeId, true);
    const store = existing ?? Object.assign(new StoreEntity(), { menu: [] });
    Object.assign(store, {
      tenantId: command.tenantId,
      storeId: command.storeId,
      name: command.name,
      currency: command.currency,
      mappingDetails: command.mappingDetails,
      paymentMerchantId: command.paymentMerchantId ?? null,
      updatedAt: new Date(),
    });
    await this.stores.save(tx, store);
    return store;
  }
}
