import { randomUUID } from 'node:crypto';
import type { PartnerEventBody, PartnerEventType } from '@comanda/contracts';
import { signBody } from '@comanda/outbound';
import { startService, type RunningService } from '@comanda/runtime';
import { partnerSandboxService } from '@comanda/service-partner-sandbox';
import { FakePartner, type OperationRequestBody } from '@comanda/service-payments';
import {
  createTestBroker,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
} from '@comanda/testing';
import { provisionClient, type ProvisionedClient } from '../support/clients';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * How long a state may take to arrive: a saga of several hops and deadlines of up to 15 s
 * in these tests, on a CI machine that may stall. Waiting longer never hides a wrong state.
 */
const SETTLES = { timeoutMs: 60_000, intervalMs: 100 };

export const SECRET = 'e2e-partner-secret-0123456789';

export interface OrderRead {
  id: string;
  status: string;
  payments: Array<{ paymentId: string; status: string; reason?: string }>;
  failure: { code: string; message: string } | null;
}

export interface PaymentRead {
  id: string;
  orderId: string;
  state: string;
  failureReason: string | null;
  operations: Array<{ operationId: string; type: string; status: string; sendAttempts: number }>;
  events: Array<{
    trigger: string;
    applied: boolean;
    operationId: string | null;
    reason: string | null;
    stateAfter: string;
  }>;
}

/**
 * The platform with a partner over HTTP, one tenant with a store that names a
 * merchant, and a client holding what a storefront, a POS adapter and an admin need. The
 * partner posts its events, signed, to the notification receiver through the gateway.
 */
export class PaymentsWorld {
  platform!: TestPlatform;
  partner!: FakePartner;
  client!: ProvisionedClient;
  readonly tenantId = `tenant-pay-${randomUUID().slice(0, 8)}`;
  readonly merchantId = `merchant-${randomUUID().slice(0, 8)}`;
  readonly storeId = 'store-1';

  /** The sandbox partner, when the world runs with it. */
  sandbox: RunningService | undefined;
  private broker: TestBroker | undefined;

  /**
   * `rabbitmq`: distributed as docker-compose runs it (services on one broker);
   * `in-process`: standalone as `npm start` runs it. `sandbox`: the reference partner over
   * HTTP; `fake`: a scripted partner (`partner.script(paymentMethod, ...)`).
   */
  static async start(
    label: string,
    options: {
      env?: Record<string, string>;
      bus: 'rabbitmq' | 'in-process';
      partner: 'fake' | 'sandbox';
    },
  ): Promise<PaymentsWorld> {
    const world = new PaymentsWorld();
    world.broker = options.bus === 'rabbitmq' ? await createTestBroker(label) : undefined;
    world.partner = new FakePartner(SECRET, (operation, type) => world.deliver(operation, type));
    const fakeUrl = await world.partner.start();
    world.platform = await startTestPlatform(label, {
      broker: world.broker,
      env: { PAYMENT_SEND_POLL_MS: '50', PAYMENT_SEND_RETRY_BASE_MS: '100', ...options.env },
    });
    let partnerUrl = fakeUrl;
    if (options.partner === 'sandbox') {
      world.sandbox = await startService(partnerSandboxService, {
        port: 0,
        host: '127.0.0.1',
        env: {
          LOG_LEVEL: 'warn',
          PARTNER_SANDBOX_SIGNING_SECRET: SECRET,
          PARTNER_SANDBOX_NOTIFICATIONS_URL: `${world.platform.baseUrl}/notifications/merchants/{merchantId}`,
          PARTNER_SANDBOX_EVENT_DELAY_MS: '50',
          PARTNER_SANDBOX_DELIVERY_RETRY_DELAYS_MS: '200,500,1000,2000,4000',
        },
      });
      partnerUrl = `${world.sandbox.url}/payments`;
    }
    world.client = await provisionClient(world.platform, {
      tenantId: world.tenantId,
      permissions: [
        'payments:admin',
        'catalog:write',
        'storefront',
        'orders:read',
        'orders:placement',
      ],
    });
    const merchant = await world.call('PUT', `/payments/merchants/${world.merchantId}`, {
      name: 'E2E merchant',
      partnerUrl,
      signingSecret: SECRET,
    });
    if (merchant.status !== 201)
      throw new Error(`merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
    await world.expect('PUT', `/stores/${world.storeId}`, 200, {
      name: 'Trattoria',
      currency: 'EUR',
      mappingDetails: {},
      paymentMerchantId: world.merchantId,
    });
    await world.expect('PUT', `/stores/${world.storeId}/menu`, 200, {
      items: [{ id: 'pizza', type: 'menuItem', title: 'Pizza', price: 1500, mappingDetails: {} }],
    });
    return world;
  }

  /**
   * As a partner delivers an event: signed over the exact bytes to the merchant's
   * notifications URL through the gateway, re-posted until the receiver takes it (it learns
   * the merchant's secret from an event, so the first posts may come too early).
   */
  async deliver(operation: OperationRequestBody, type: PartnerEventType): Promise<void> {
    const event: PartnerEventBody = {
      eventId: randomUUID(),
      type,
      paymentId: operation.paymentId,
      operationId: operation.operationId,
      occurredAt: new Date().toISOString(),
    };
    const body = JSON.stringify(event);
    const url = `${this.platform.baseUrl}/notifications/merchants/${operation.merchantId}/events`;
    await waitFor(
      `the receiver to take ${type}`,
      async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'comanda-signature': signBody(SECRET, body),
          },
          body,
        });
        return response.ok;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.platform.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await this.client.token()}`,
        'x-api-version': '0',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async expect<T = unknown>(
    method: string,
    path: string,
    status: number,
    body?: unknown,
  ): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (answer.status !== status) {
      throw new Error(
        `${method} ${path}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    }
    return answer.body;
  }

  /** A guest's basket with two pizzas, checked out with `paymentMethod`; returns the order id. */
  async checkout(paymentMethod: string): Promise<string> {
    const basket = await this.expect<{ id: string }>('POST', '/baskets', 201, {
      storeId: this.storeId,
      fulfillment: 'pickup',
      guest: { name: 'Ada', email: 'ada@example.com', phone: '+41 44 000 00 00' },
      payment: { merchantId: this.merchantId, paymentMethod },
    });
    await this.expect('POST', `/baskets/${basket.id}/items`, 201, {
      menuItemId: 'pizza',
      quantity: 2,
    });
    const answer = await this.expect<{ orderId: string; status: string }>(
      'POST',
      `/baskets/${basket.id}/checkout`,
      202,
    );
    return answer.orderId;
  }

  order(orderId: string): Promise<OrderRead> {
    return this.expect<OrderRead>('GET', `/orders/${orderId}`, 200);
  }

  orderIn(orderId: string, status: string): Promise<OrderRead> {
    return waitFor(
      `order ${orderId} ${status}`,
      async () => {
        const order = await this.order(orderId);
        return order.status === status && order;
      },
      SETTLES,
    );
  }

  async paymentOf(orderId: string): Promise<PaymentRead> {
    const order = await waitFor(
      `a payment on order ${orderId}`,
      async () => {
        const read = await this.order(orderId);
        return read.payments.length > 0 && read;
      },
      SETTLES,
    );
    return this.expect<PaymentRead>('GET', `/payments/${order.payments[0]?.paymentId}`, 200);
  }

  paymentIn(orderId: string, state: string): Promise<PaymentRead> {
    return waitFor(
      `payment of ${orderId} ${state}`,
      async () => {
        const payment = await this.paymentOf(orderId);
        return payment.state === state && payment;
      },
      SETTLES,
    );
  }

  /** The POS adapter: start a session, then report placed or failed. */
  async place(orderId: string, outcome: 'placed' | 'failed'): Promise<void> {
    await this.expect('POST', `/orders/${orderId}/place-order-session/start`, 200, {
      placeOrderSessionId: randomUUID(),
    });
    if (outcome === 'placed') {
      const now = new Date().toISOString();
      await this.expect('POST', `/orders/${orderId}/pos/placed`, 200, {
        orderName: 'A-1',
        datePlaced: now,
        estimatedReadyTime: now,
      });
    } else {
      await this.expect('POST', `/orders/${orderId}/pos/failed`, 200, {
        code: 'pos.offline',
        message: 'The POS did not answer',
      });
    }
  }

  async close(): Promise<void> {
    await this.sandbox?.close();
    await this.platform?.close();
    await this.partner?.stop();
    if (this.broker) await disposePlatformBroker(this.broker);
  }
}
