import { randomUUID } from 'node:crypto';
import { signBody } from '@comanda/outbound';
import { waitFor } from '@comanda/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { merchantKnownAtNotifications, PaymentsStandIn } from './partner-events-observer';

const TENANT = 'tenant-sandbox-e2e';
const MERCHANT = `merchant-${randomUUID().slice(0, 8)}`;
const SECRET = 'standalone-sandbox-secret';

describe('the partner sandbox started by the platform (COMANDA_PARTNER_SANDBOX=1)', () => {
  let platform: TestPlatform;
  let payments: PaymentsStandIn;
  let sandboxUrl: string;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_partner_sandbox', {
      env: {
        COMANDA_PARTNER_SANDBOX: '1',
        PARTNER_SANDBOX_PORT: '0',
        PARTNER_SANDBOX_SIGNING_SECRET: SECRET,
        PARTNER_SANDBOX_EVENT_DELAY_MS: '50',
      },
    });
    const sandbox = platform.services.get('partner-sandbox');
    if (!sandbox) throw new Error('the platform did not start the partner sandbox');
    sandboxUrl = sandbox.url;
    payments = await PaymentsStandIn.start(platform, 'payments-stand-in');
    await payments.configureMerchant(TENANT, MERCHANT, SECRET);
    await merchantKnownAtNotifications(platform.baseUrl, MERCHANT, SECRET);
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
  });

  async function operate(operationType: string, paymentId: string, paymentMethod: string) {
    const operationId = `op-${randomUUID()}`;
    const body = JSON.stringify({
      operationId,
      operationType,
      paymentId,
      orderId: 'order-1',
      merchantId: MERCHANT,
      amount: { value: 2350, currency: 'EUR' },
      paymentMethod,
    });
    const response = await fetch(`${sandboxUrl}/payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': operationId,
        'comanda-signature': signBody(SECRET, body),
      },
      body,
    });
    return { operationId, status: response.status };
  }

  it('posts its signed events through the gateway to notifications, which hands them to payments', async () => {
    const paymentId = `pay-${randomUUID()}`;
    const registration = await operate('registration', paymentId, 'sandbox_success');
    expect(registration.status).toBe(202);
    const registered = await waitFor(
      'registration_succeeded handed to payments',
      () => payments.eventsWith({ operationId: registration.operationId })[0],
    );
    expect(registered).toMatchObject({
      tenantid: TENANT,
      data: { merchantId: MERCHANT, type: 'registration_succeeded' },
    });

    const authorization = await operate('authorization', paymentId, 'sandbox_success');
    expect(authorization.status).toBe(202);
    const authorized = await waitFor(
      'authorization_succeeded',
      () => payments.eventsWith({ operationId: authorization.operationId })[0],
    );
    expect(authorized.data.type).toBe('authorization_succeeded');

    const ledger = await fetch(`${sandboxUrl}/sandbox/transactions/${paymentId}`);
    expect(await ledger.json()).toMatchObject({ state: 'authorized' });
  });
});
