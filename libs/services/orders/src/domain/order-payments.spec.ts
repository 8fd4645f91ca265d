import type { OrderPayment } from './order';
import { withPaymentUpdate } from './order-payments';

const payment = (status: string): OrderPayment => ({
  paymentId: 'p1',
  status,
  amount: { value: 100, currency: 'CHF' },
  updatedAt: '2026-11-23T18:00:00Z',
});

describe("an order's payments", () => {
  it('adds a payment it did not know and moves a known one forward', () => {
    const registered = withPaymentUpdate([], payment('registered'));
    expect(registered).toEqual([payment('registered')]);
    expect(withPaymentUpdate(registered, payment('authorized'))).toEqual([payment('authorized')]);
  });

  it('never moves a payment backwards when events arrive out of order', () => {
    expect(withPaymentUpdate([payment('authorized')], payment('registered'))).toEqual([
      payment('authorized'),
    ]);
    expect(withPaymentUpdate([payment('captured')], payment('authorized'))).toEqual([
      payment('captured'),
    ]);
  });
});
