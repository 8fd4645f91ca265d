import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import type { OrderStatus } from '../../domain/order';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';

export interface ListOrdersQuery {
  tenantId: string;
  status?: OrderStatus;
  limit: number;
  cursor?: string;
}

export interface OrdersPage {
  items: OrderEntity[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** Oldest first, keyset-paginated: a POS polling `placementStatus=ready` sees every order once. */
@Injectable()
export class ListOrders {
  constructor(private readonly orders: OrderRepository) {}

  async execute(tx: Tx, query: ListOrdersQuery): Promise<OrdersPage> {
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const rows = await this.orders.page(tx, query.tenantId, query.status, after, query.limit + 1);
    const items = rows.slice(0, query.limit);
    const last = items[items.length - 1];
    return rows.length > query.limit && last
      ? { items, nextCursor: encodeCursor(last.createdAt, last.id) }
      : { items };
  }
}

function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

/** Undefined for a cursor this service did not hand out. */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return { createdAt, id };
}
