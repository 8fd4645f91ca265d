import { Client } from 'pg';
import { succeed } from '@comanda/service-payments';
import { waitFor } from '@comanda/testing';
import { provisionClient } from '../support/clients';
import { PaymentsWorld, SECRET } from './payments-api';

jest.setTimeout(120_000);

describe('paid orders through the gateway, with a partner over HTTP (RabbitMQ)', () => {
  let world: PaymentsWorld;

  beforeAll(async () => {
    world = await PaymentsWorld.start('e2e_payments', {
      bus: 'rabbitmq',
      partner: 'fake',
      // Long enough that no operation meant to succeed meets it on a stalled CI machine.
      env: { PAYMENT_OPERATION_TIMEOUT_MS: '8000', ANNULMENT_RETRY_DELAYS_MS: '300' },
    });
    world.partner.script('annulment-fails', (operation) =>
      operation.operationType === 'annulment'
        ? { status: 202, event: 'annulment_failed' }
        : succeed(operation, 1),
    );
    world.partner.script('silent', (operation) =>
      operation.operationType === 'registration' ? { status: 202 } : succeed(operation, 1),
    );
    world.partner.script('malformed', () => ({ status: 400 }));
    world.partner.script('auth-declined', (operation) =>
      operation.operationType === 'authorization'
        ? { status: 202, event: 'authorization_failed' }
        : succeed(operation, 1),
    );
  });
  afterAll(() => world?.close());

  it('never returns the signing secret in merchant reads', async () => {
    const read = await world.expect<Record<string, unknown>>(
      'GET',
      `/payments/merchants/${world.merchantId}`,
      200,
    );
    expect(read).toMatchObject({ id: world.merchantId, name: 'E2E merchant' });
    expect(JSON.stringify(read)).not.toContain('e2e-partner-secret');
    expect(read.notificationsUrl).toMatch(
      new RegExp(`/notifications/merchants/${world.merchantId}$`),
    );
  });

  it("keeps the merchant's secret out of both services' tables in clear (ADR 0033)", async () => {
    const sql = new Client({ connectionString: world.platform.databaseUrl });
    await sql.connect();
    try {
      const stored = await waitFor('both services to hold the merchant', async () => {
        const payments = await sql.query('SELECT * FROM payments.merchants WHERE id = $1', [
          world.merchantId,
        ]);
        const notifications = await sql.query(
          'SELECT * FROM notifications.merchant_secrets WHERE merchant_id = $1',
          [world.merchantId],
        );
        return (
          payments.rows.length === 1 &&
          notifications.rows.length === 1 && [
            payments.rows[0] as Record<string, unknown>,
            notifications.rows[0] as Record<string, unknown>,
          ]
        );
      });
      for (const row of stored) {
        expect(row['signing_secret_sealed']).toMatch(/^v1\./);
        expect(JSON.stringify(row)).not.toContain(SECRET);
      }
    } finally {
      await sql.end();
    }
    // Signatures made and checked with the sealed secrets still verify, both ways: the
    // partner checks the operations, the receiver the partner's events.
    const orderId = await world.checkout('ok');
    await world.orderIn(orderId, 'ready');
    const payment = await world.paymentOf(orderId);
    const sent = world.partner.operationsOf(payment.id);
    expect(sent.map((operation) => operation.body.operationType)).toEqual([
      'registration',
      'authorization',
    ]);
    expect(sent.every((operation) => operation.signatureValid)).toBe(true);
  });

  it('takes a paid order from checkout through registration, authorization and placement to capture (rule 1)', async () => {
    const orderId = await world.checkout('ok');
    expect((await world.order(orderId)).status).toBe('awaiting_payment');
    // The order reaches the POS only after authorization_succeeded.
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'placed');
    const payment = await world.paymentIn(orderId, 'captured');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'succeeded'],
      ['capture', 'succeeded'],
    ]);
    const sent = world.partner.operationsOf(payment.id);
    expect(sent.every((operation) => operation.signatureValid)).toBe(true);
    expect(sent[0]?.body.amount).toEqual({ value: 3000, currency: 'EUR' });
    const order = await waitFor('the order shows the capture', async () => {
      const read = await world.order(orderId);
      return read.payments[0]?.status === 'captured' && read;
    });
    expect(order.status).toBe('placed');
    expect(order.payments).toEqual([
      expect.objectContaining({
        paymentId: payment.id,
        status: 'captured',
        amount: { value: 3000, currency: 'EUR' },
        captureAttempts: 1,
      }),
    ]);
  });

  it('annuls the payment exactly once when the POS fails the order after authorization (rule 2)', async () => {
    const orderId = await world.checkout('ok');
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'failed');
    const payment = await world.paymentIn(orderId, 'annulled');
    const types = world.partner
      .operationsOf(payment.id)
      .map((operation) => operation.body.operationType);
    expect(types).toEqual(['registration', 'authorization', 'annulment']);
    expect((await world.order(orderId)).status).toBe('failed');
  });

  it('retries an annulment that fails, then shows the order that the money may still be held', async () => {
    const orderId = await world.checkout('annulment-fails');
    await world.orderIn(orderId, 'ready');
    await world.place(orderId, 'failed');
    const payment = await world.paymentIn(orderId, 'annulment_failed');
    const types = world.partner
      .operationsOf(payment.id)
      .map((operation) => operation.body.operationType);
    expect(types).toEqual(['registration', 'authorization', 'annulment', 'annulment']);
    const order = await waitFor('the order shows the annulment failed', async () => {
      const read = await world.order(orderId);
      return read.payments[0]?.status === 'annulment_failed' && read;
    });
    expect(order.status).toBe('failed');
    expect(order.payments[0]).toMatchObject({
      paymentId: payment.id,
      reason: 'no annulment succeeded in 2 attempt(s)',
    });
  });

  it('fails the checkout and annuls when the partner never completes the registration (rules 3 and 4)', async () => {
    const orderId = await world.checkout('silent');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure).toMatchObject({
      code: 'payment.failed',
      message: 'registration_timed_out',
    });
    const payment = await world.paymentIn(orderId, 'annulled');
    expect(payment.failureReason).toBe('registration_timed_out');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'timed_out'],
      ['annulment', 'succeeded'],
    ]);
  });

  it('fails the checkout at once when the partner answers 400 to a malformed request (rule 7)', async () => {
    const orderId = await world.checkout('malformed');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toMatch(/^registration_rejected/);
    const payment = await world.paymentOf(orderId);
    expect(payment.state).toBe('failed');
    expect(payment.operations).toEqual([
      expect.objectContaining({ type: 'registration', status: 'rejected' }),
    ]);
  });

  it('fails the checkout when the partner declines the authorization, and sends no capture', async () => {
    const orderId = await world.checkout('auth-declined');
    const order = await world.orderIn(orderId, 'failed');
    expect(order.failure?.message).toMatch(/^authorization_failed/);
    const payment = await world.paymentOf(orderId);
    expect(
      world.partner.operationsOf(payment.id).map((operation) => operation.body.operationType),
    ).toEqual(['registration', 'authorization']);
  });

  it('answers 404 payment.not_found for a payment id of no payment of the tenant, a UUID or not (as orders do)', async () => {
    for (const id of [
      '6f1c2a44-6b1e-4c9f-9d55-0a1b2c3d4e5f',
      '6ba7b810-9dad-11d1-80b4-00c04fd430c8', // a version 1 UUID
      'not-a-uuid',
    ]) {
      const unknown = await world.call('GET', `/payments/${id}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 'payment.not_found' });
    }
  });

  it('answers 422 for a partner URL that is not an http(s) URL, and 400 for a short secret', async () => {
    const badUrl = await world.call('PUT', '/payments/merchants/m-bad', {
      name: 'bad',
      partnerUrl: 'ftp://partner.example.com',
      signingSecret: 'a-long-enough-secret',
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body).toMatchObject({ code: 'merchant.partner_url_refused' });
    const shortSecret = await world.call('PUT', '/payments/merchants/m-bad', {
      name: 'bad',
      partnerUrl: 'http://127.0.0.1:1/payments',
      signingSecret: 'short',
    });
    expect(shortSecret.status).toBe(400);
  });

  it("keeps a tenant's payments and merchants from every other tenant", async () => {
    const orderId = await world.checkout('ok');
    const payment = await world.paymentOf(orderId);
    const other = await provisionClient(world.platform, {
      tenantId: `${world.tenantId}-other`,
      permissions: ['payments:admin', 'orders:read'],
    });
    const asOther = async (method: string, path: string, body?: unknown) =>
      fetch(`${world.platform.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${await other.token()}`,
          'x-api-version': '0',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await asOther('GET', `/payments/${payment.id}`)).status).toBe(404);
    expect((await asOther('GET', `/payments/merchants/${world.merchantId}`)).status).toBe(404);
    const taken = await asOther('PUT', `/payments/merchants/${world.merchantId}`, {
      name: 'squatter',
      partnerUrl: 'http://127.0.0.1:1/payments',
      signingSecret: 'another-long-enough-secret',
    });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ code: 'merchant.id_taken' });
  });

  it('answers 403 without payments:admin on merchants and without orders:read on payments', async () => {
    const storefront = await provisionClient(world.platform, {
      tenantId: world.tenantId,
      permissions: ['storefront'],
    });
    const token = await storefront.token();
    const headers = { authorization: `Bearer ${token}`, 'x-api-version': '0' };
    const merchant = await fetch(
      `${world.platform.baseUrl}/payments/merchants/${world.merchantId}`,
      { headers },
    );
    expect(merchant.status).toBe(403);
    const payment = await fetch(
      `${world.platform.baseUrl}/payments/6f1c2a44-6b1e-4c9f-9d55-0a1b2c3d4e5f`,
      {
        headers,
      },
    );
    expect(payment.status).toBe(403);
  });
});
