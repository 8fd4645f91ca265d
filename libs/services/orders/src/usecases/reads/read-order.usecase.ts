import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { ReceiptNotFoundError } from '../../domain/order.errors';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';

@Injectable()
export class ReadOrder {
  constructor(private readonly orders: OrderRepository) {}

  execute(tx: Tx, tenantId: string, orderId: string): Promise<OrderEntity> {
    return this.orders.get(tx, tenantId, orderId);
  }

  /** The fiscal receipt exactly as the POS reported it. */
  async receipt(tx: Tx, tenantId: string, orderId: string): Promise<string> {
    const order = await this.orders.get(tx, tenantId, orderId);
    if (order.receipt === null) throw new ReceiptNotFoundError(orderId);
    return order.receipt;
  }
}
