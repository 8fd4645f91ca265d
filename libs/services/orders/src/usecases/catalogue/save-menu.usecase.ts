import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { MenuItemDuplicateError } from '../../domain/order.errors';
import type { MenuItem, StoreEntity } from '../../persistence/store.entity';
import { StoreRepository } from '../../persistence/store.repository';

export interface SaveMenuCommand {
  tenantId: string;
  storeId: string;
  items: MenuItem[];
}

/** Replaces the store's menu. Orders already checked out keep their own copy. */
@Injectable()
export class SaveMenu {
  constructor(private readonly stores: StoreRepository) {}

  async execute(tx: Tx, command: SaveMenuCommand): Promise<StoreEntity> {
    const seen = new Set<string>();
    for (const item of command.items) {
      if (seen.has(item.id)) throw new MenuItemDuplicateError(item.id);
      seen.add(item.id);
    }
    const store = await this.stores.get(tx, command.tenantId, command.storeId, true);
    store.menu = command.items.map((item) => ({
      id: item.id,
      type: item.type,
      title: item.title,
      price: item.price,
      mappingDetails: item.mappingDetails,
    }));
    store.updatedAt = new Date();
    await this.stores.save(tx, store);
    return store;
  }
}
