import { waitFor } from '@comanda/testing';
import { PaymentsWorld } from './payments-api';

jest.setTimeout(120_000);

interface SandboxTransaction {
  state: string;
  operations: Array<{ operationType: string }>;
}

/**
 * Standalone mode (the in-process bus, as `npm start` runs it) against the partner sandbox
 * over real HTTP: operations signed to the sandbox, its events signed back through the
 * gateway to the notification receiver, then over the bus to payments and orders.
 */
describe('paid orders with the partner sandbox, standalone', () => {
  let world: PaymentsWorld;

  beforeAll(async () => {
    world = await PaymentsWorld.start('e2e_payments_sandbox', {
      bus: 'in-process',
      partner: 'sandbox',
      env: {
        PAYMENT_OPERATION_TIMEOUT_MS: '3000',
        RESERVATION_TTL_MS: '9000',
        CAPTURE_RETRY_DELAYS_MS: '700,700,700,700,700,700,700,700,700,700,700,700',
      },
    });
  });
  afterAll(() => world?.close());

  async function ledger(paymentId: string): Promise<SandboxTransaction> {
    const response = await fetch(`${world.sandbox?.url}/sandbox/transactions/${paymentId}`);
    return (await response.json()) as SandboxTransaction;
  }

  it('takes a paid order through registration, authorization, placement and capture (rule 1)', async () => {
    const orderId = await world.checkout('sandbox_success');
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'placed');
    const payment = await world.paymentIn(orderId, 'captured');
    expect(payment.operations.map((operation) => operation.type)).toEqual([
      'registration',
      'authorization',
      'capture',
    ]);
    expect((await ledger(payment.id)).state).toBe('captured');
    await waitFor('the order shows the capture', async () => {
      const order = await world.order(orderId);
      return order.status === 'placed' && order.payments[0]?.status === 'captured';
    });
  });

  it('annuls exactly once when placement fails after authorization (rule 2)', async () => {
    const orderId = await world.checkout('sandbox_success');
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'failed');
    const payment = await world.paymentIn(orderId, 'annulled');
    expect(payment.operations.filter((operation) => operation.type === 'annulment')).toHaveLength(
      1,
    );
    expect((await ledger(payment.id)).state).toBe('annulled');
  });

  it('fails the payment and annuls when no completion event arrives within the timeout (rule 3)', async () => {
    const orderId = await world.checkout('sandbox_no_event_authorization');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toBe('authorization_timed_out');
    const payment = await world.paymentIn(orderId, 'annulled');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'timed_out'],
      ['annulment', 'succeeded'],
    ]);
  });

  it('fails the payment on timeout when the partner aborts a registration it could not report (rule 4)', async () => {
    const orderId = await world.checkout('sandbox_receiver_500');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toBe('registration_timed_out');
    const payment = await world.paymentOf(orderId);
    expect(payment.failureReason).toBe('registration_timed_out');
    expect(payment.operations[0]).toMatchObject({ type: 'registration', status: 'timed_out' });
  });

  it('fails the checkout on a declined registration, without annulment', async () => {
    const orderId = await world.checkout('sandbox_registration_declined');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toMatch(/^registration_failed/);
    const payment = await world.paymentOf(orderId);
    expect(payment.operations.map((operation) => operation.type)).toEqual(['registration']);
  });

  it('fails the checkout when the guest cancels the registration', async () => {
    const orderId = await world.checkout('sandbox_registration_cancelled');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toMatch(/^registration_cancelled/);
  });

  it('retries a failing capture until the reservation expires, then annuls once and captures no more (rule 6)', async () => {
    const orderId = await world.checkout('sandbox_capture_failing');
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'placed');
    const payment = await world.paymentIn(orderId, 'annulled');
    const types = payment.operations.map((operation) => operation.type);
    expect(types.filter((type) => type === 'capture').length).toBeGreaterThanOrEqual(2);
    expect(types.filter((type) => type === 'annulment')).toHaveLength(1);
    expect(types.at(-1)).toBe('annulment');
    const transaction = await ledger(payment.id);
    expect(transaction.state).toBe('annulled');
    expect(transaction.operations.at(-1)?.operationType).toBe('annulment');
  });
});
