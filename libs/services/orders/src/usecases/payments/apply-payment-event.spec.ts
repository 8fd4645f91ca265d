import type { EventType, NewEvent } from '@comanda/contracts';
import type { OutboxWriter } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import type { OrderStatus } from '../../domain/order';
import type { OrderEntity } from '../../persistence/order.entity';
import type { OrderRepository } from '../../persistence/order.repository';
import { anOrder } from '../../testing/order.builder';
import type { CloseOrder } from '../close-order/close-order';
import { OrderAnnouncer } from '../order-announcer';
import { ApplyPaymentEvent, type PaymentEventStatus } from './apply-payment-event.usecase';

const tx = {} as Tx;

/** The use case with its real announcer, over one order kept in memory. */
function applying(status: OrderStatus) {
  const order = anOrder().withStatus(status).build();
  const announced: string[] = [];
  const writer = {
    add: (_tx: Tx, event: NewEvent<EventType>) => {
      announced.push(event.type);
      return Promise.resolve();
    },
  } as unknown as OutboxWriter;
  const orders = {
    find: () => Promise.resolve(order),
    save: () => Promise.resolve(),
  } as unknown as OrderRepository;
  const useCase = new ApplyPaymentEvent(orders, {} as CloseOrder, new OrderAnnouncer(writer));
  const apply = (paymentStatus: PaymentEventStatus) =>
    useCase.execute(tx, {
      tenantId: order.tenantId,
      status: paymentStatus,
      event: {
        paymentId: 'p-1',
        orderId: order.id,
        amount: { value: 100, currency: 'CHF' },
        ...(paymentStatus === 'failed' ? { reason: 'registration_timed_out' } : {}),
      },
    });
  return { order: order as OrderEntity, announced, apply };
}

describe('ApplyPaymentEvent: a payment that ends before the order is placed (ADR 0051)', () => {
  it.each(['ready', 'placing'] as const)(
    'fails a %s order and announces a placement failure caused by the payment',
    async (status) => {
      const { order, announced, apply } = applying(status);
      await apply('annulled');
      expect(order.status).toBe('failed');
      expect(order.failure?.code).toBe('payment.annulled');
      expect(announced).toEqual(['order.placement_failed']);
    },
  );

  it.each(['failed', 'annulled', 'annulment_failed'] as const)(
    'fails the checkout of an order waiting for payment on %s, whichever end arrives first',
    async (paymentStatus) => {
      const { order, announced, apply } = applying('awaiting_payment');
      await apply(paymentStatus);
      expect(order.status).toBe('failed');
      expect(order.failure?.code).toBe('payment.failed');
      expect(announced).toEqual(['order.checkout_failed']);
      // The other end, arriving later, is only recorded.
      await apply(paymentStatus === 'failed' ? 'annulled' : 'failed');
      expect(announced).toEqual(['order.checkout_failed']);
    },
  );

  it('leaves a placed order placed', async () => {
    const { order, announced, apply } = applying('placed');
    await apply('annulled');
    expect(order.status).toBe('placed');
    expect(announced).toEqual([]);
  });
});
