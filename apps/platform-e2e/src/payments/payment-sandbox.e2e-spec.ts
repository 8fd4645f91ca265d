import { waitFor } from '@comanda/testing';
import { PaymentsWorld } from './payments-api';

jest.setTimeout(120_000);

interface SandboxTransaction {
  state: string;
  lapsedAt?: string;
  operations: Array<{
    operationId: string;
    operationType: string;
    event?: { type: string; reason?: string; status: string };
  }>;
}

/**
 * Standalone mode (the in-process bus, as `npm start` runs it) against the partner sandbox
 * over real HTTP: operations signed to the sandbox, its events signed back through the
 * gateway to the notification receiver, then over the bus to payments and orders.
 *
 * Two platforms, one after the other: the paths that end without a deadline run with the
 * service's own timeouts, so a CI machine that stalls for seconds never turns a success into
 * a timeout; the rules about deadlines run with short ones, still long enough for every
 * operation that must succeed before them.
 */
describe('paid orders with the partner sandbox, standalone', () => {
  let world: PaymentsWorld;

  async function ledger(paymentId: string): Promise<SandboxTransaction> {
    const response = await fetch(`${world.sandbox?.url}/sandbox/transactions/${paymentId}`);
    return (await response.json()) as SandboxTransaction;
  }

  describe('with the default deadlines', () => {
    beforeAll(async () => {
      world = await PaymentsWorld.start('e2e_payments_sandbox', {
        bus: 'in-process',
        partner: 'sandbox',
      });
    });
    afterAll(() => world?.close());

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
  });

  describe('with short deadlines', () => {
    beforeAll(async () => {
      world = await PaymentsWorld.start('e2e_payments_sandbox_deadlines', {
        bus: 'in-process',
        partner: 'sandbox',
        env: {
          PAYMENT_OPERATION_TIMEOUT_MS: '5000',
          RESERVATION_TTL_MS: '15000',
          CAPTURE_RETRY_DELAYS_MS:
            '700,700,700,700,700,700,700,700,700,700,700,700,700,700,700,700,700,700',
        },
      });
    });
    afterAll(() => world?.close());

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

    it('accepts capture on a transaction the partner annulled itself, then records capture_failed, retries, and annuls once at expiry (rule 5)', async () => {
      // Authorized, then annulled on the partner's side (its reservation lapsed): Comanda
      // does not know, places the order and sends capture into an incompatible state.
      const orderId = await world.checkout('sandbox_reservation_lapsed');
      await world.orderIn(orderId, 'ready');
      await world.place(orderId, 'placed');
      const payment = await world.paymentIn(orderId, 'annulled');

      const types = payment.operations.map((operation) => operation.type);
      expect(types.slice(0, 3)).toEqual(['registration', 'authorization', 'capture']);
      const captures = payment.operations.filter((operation) => operation.type === 'capture');
      // Retried per CAPTURE_RETRY_DELAYS_MS until the reservation expired.
      expect(captures.length).toBeGreaterThanOrEqual(2);
      // Each capture was taken by the partner (not a 400: that would be `rejected`) and then
      // completed by its failure event.
      expect(captures.map((capture) => capture.status)).toEqual(captures.map(() => 'failed'));
      const captureFailures = payment.events.filter(
        (event) => event.trigger === 'capture_failed' && event.applied,
      );
      expect(captureFailures.map((event) => [event.operationId, event.reason])).toEqual(
        captures.map((capture) => [capture.operationId, 'transaction_annulled']),
      );
      // One annulment, at the end: nothing is captured, nothing is sent after it.
      expect(types.filter((type) => type === 'annulment')).toHaveLength(1);
      expect(types.at(-1)).toBe('annulment');
      expect(payment.events.some((event) => event.stateAfter === 'captured')).toBe(false);

      // The partner's side: every capture answered 202 and then capture_failed, delivered.
      // (The sandbox marks an event delivered when the receiver's answer reaches it.)
      const transaction = await waitFor('the sandbox to see its last event delivered', async () => {
        const read = await ledger(payment.id);
        return read.operations.at(-1)?.event?.status === 'delivered' && read;
      });
      expect(transaction.state).toBe('annulled');
      expect(transaction.lapsedAt).toEqual(expect.any(String));
      const sandboxCaptures = transaction.operations.filter(
        (operation) => operation.operationType === 'capture',
      );
      expect(sandboxCaptures.map((operation) => operation.operationId)).toEqual(
        captures.map((capture) => capture.operationId),
      );
      expect(sandboxCaptures.map((operation) => operation.event)).toEqual(
        captures.map(() =>
          expect.objectContaining({
            type: 'capture_failed',
            reason: 'transaction_annulled',
            status: 'delivered',
          }),
        ),
      );
      expect(transaction.operations.at(-1)).toMatchObject({
        operationType: 'annulment',
        event: { type: 'annulment_succeeded', status: 'delivered' },
      });
      await waitFor('the order shows the annulment', async () => {
        const order = await world.order(orderId);
        return order.payments[0]?.status === 'annulled' && order;
      });
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

    it('fails a ready order whose reservation expired before it was placed, and refuses its placement', async () => {
      const orderId = await world.checkout('sandbox_success');
      await world.orderIn(orderId, 'ready');
      const payment = await world.paymentIn(orderId, 'annulled');
      expect(payment.operations.map((operation) => operation.type)).toEqual([
        'registration',
        'authorization',
        'annulment',
      ]);
      const order = await world.orderIn(orderId, 'failed');
      expect(order.failure).toMatchObject({ code: 'payment.annulled' });
      const session = await world.call<{ code: string }>(
        'POST',
        `/orders/${orderId}/place-order-session/start`,
        { placeOrderSessionId: '0b6a3c2e-6f1d-4a57-9a52-5c1d3f0e7a10' },
      );
      expect(session.status).toBe(409);
      expect(session.body.code).toBe('order.not_ready');
    });
  });
});
