import { randomUUID } from 'node:crypto';
import type { OrderStatus } from '../domain/order';
import { OrderEntity } from '../persistence/order.entity';

/** Test builder: `anOrder().ready().build()`. */
export function anOrder() {
  const now = new Date('2026-11-23T17:00:00Z');
  const order = Object.assign(new OrderEntity(), {
    id: randomUUID(),
    tenantId: 'tenant-a',
    basketId: randomUUID(),
    storeId: 'store-1',
    status: 'ready' as OrderStatus,
    fulfillment: 'pickup' as const,
    requestedReadyTime: null,
    guest: { name: 'Guest', email: 'guest@example.com', phone: '1' },
    storeDetails: { id: 'store-1', name: 'Store', currency: 'CHF', mappingDetails: {} },
    items: [],
    discounts: [],
    totals: { currency: 'CHF', items: 0, charges: 0, discounts: 0, total: 0 },
    paymentRequest: null,
    payments: [],
    paymentId: null,
    placement: null,
    failure: null,
    receipt: null,
    timeline: [],
    createdAt: now,
    readyAt: now,
    finalizedAt: null as Date | null,
    updatedAt: now,
  });
  const builder = {
    ready: () => builder.withStatus('ready'),
    withStatus: (status: OrderStatus) => {
      order.status = status;
      order.finalizedAt = status === 'placed' || status === 'failed' ? now : null;
      return builder;
    },
    build: (): OrderEntity => order,
  };
  return builder;
}
