import { verifySignature } from '@comanda/outbound';
import {
  createTestBroker,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
} from '@comanda/testing';
import { AUTH_KEYS_ENV } from '../auth/auth-test-kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ordersTenant, type OrdersTenant as Tenant } from './orders-api';
import { readyOrder, startWebhookEndpoint } from './webhooks-kit';

interface Subscription {
  id: string;
  url: string;
  types: string[];
  status: string;
  secret?: string;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  attemptLog: Array<{ number: number; statusCode?: number; error?: string }>;
}

describe.each([
  ['RabbitMQ', true],
  ['the in-process bus of standalone mode', false],
])('orders: webhook subscriptions (%s, through the gateway)', (_bus, withBroker) => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let broker: TestBroker | undefined;

  beforeAll(async () => {
    broker = withBroker ? await createTestBroker('e2e-webhooks') : undefined;
    platform = await startTestPlatform('e2e_webhooks', {
      broker,
      env: { ...AUTH_KEYS_ENV, WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_RETRY_MAX_MS: '1000' },
    });
    tenant = await ordersTenant(platform, 'hooks-a');
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    if (broker) await disposePlatformBroker(broker);
  });

  it('manages subscriptions: the secret once, reads without it, 404 for another tenant, 400 for bad input', async () => {
    const created = await tenant.as<Subscription>(['orders:read'], 'POST', '/event-subscriptions', {
      url: 'http://127.0.0.1:9/hooks',
      types: ['order.ready_to_be_placed_in_pos', 'order.placed'],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    const { id } = created.json;

    const read = await tenant.as<Subscription>(
      ['orders:read'],
      'GET',
      `/event-subscriptions/${id}`,
    );
    expect(read.status).toBe(200);
    expect(read.json).not.toHaveProperty('secret');
    const list = await tenant.as<Subscription[]>(['orders:read'], 'GET', '/event-subscriptions');
    expect(list.json.map((s) => s.id)).toContain(id);

    const other = await ordersTenant(platform, 'hooks-b');
    expect((await other.as(['orders:read'], 'GET', `/event-subscriptions/${id}`)).status).toBe(404);
    expect((await other.as(['orders:read'], 'DELETE', `/event-subscriptions/${id}`)).status).toBe(
      404,
    );
    expect(
      (await tenant.as(['orders:read'], 'GET', '/event-subscriptions/not-a-uuid')).json,
    ).toMatchObject({
      status: 404,
      code: 'subscription.not_found',
    });
    expect((await tenant.as(['storefront'], 'GET', '/event-subscriptions')).status).toBe(403);

    const invalid = await tenant.as(['orders:read'], 'POST', '/event-subscriptions', {
      url: `https://example.com/${'x'.repeat(2100)}`,
      types: ['payment.authorized'],
    });
    expect(invalid.status).toBe(400);
    expect(
      (invalid.json as { errors: Array<{ path: string }> }).errors.map((e) => e.path).sort(),
    ).toEqual(['types', 'url']);

    expect((await tenant.as(['orders:read'], 'DELETE', `/event-subscriptions/${id}`)).status).toBe(
      200,
    );
    expect((await tenant.as(['orders:read'], 'GET', `/event-subscriptions/${id}`)).status).toBe(
      404,
    );
  });

  it('delivers the ready event signed, again later after a 500, logs the attempts, and redelivers on request', async () => {
    const endpoint = await startWebhookEndpoint([500, 200]);
    try {
      const created = await tenant.as<Subscription>(
        ['orders:read'],
        'POST',
        '/event-subscriptions',
        {
          url: endpoint.url,
          types: ['order.ready_to_be_placed_in_pos'],
        },
      );
      expect(created.status).toBe(201);
      const { id, secret } = created.json;

      const { orderId, storeId } = await readyOrder(tenant);
      await waitFor('a second attempt after the 500', () => endpoint.received.length >= 2);

      const [first, second] = endpoint.received;
      expect(second!.body).toBe(first!.body);
      expect(second!.headers['comanda-delivery-id']).toBe(first!.headers['comanda-delivery-id']);
      const event = JSON.parse(second!.body) as {
        id: string;
        type: string;
        tenantid: string;
        data: unknown;
      };
      expect(event).toMatchObject({
        specversion: '1.0',
        type: 'order.ready_to_be_placed_in_pos',
        tenantid: 'hooks-a',
        data: { orderId, storeId },
      });
      for (const { headers, body } of endpoint.received) {
        expect(headers['content-type']).toMatch(/^application\/cloudevents\+json/);
        expect(headers['comanda-event-id']).toBe(event.id);
        expect(verifySignature(headers['comanda-signature'] as string, body, secret!)).toEqual({
          valid: true,
        });
      }

      const log = await waitFor('the delivery marked succeeded', async () => {
        const answer = await tenant.as<Delivery[]>(
          ['orders:read'],
          'GET',
          `/event-subscriptions/${id}/deliveries`,
        );
        return answer.json[0]?.status === 'succeeded' && answer.json;
      });
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({
        id: first!.headers['comanda-delivery-id'],
        eventId: event.id,
        attempts: 2,
        attemptLog: [
          expect.objectContaining({ number: 1, statusCode: 500 }),
          expect.objectContaining({ number: 2, statusCode: 200 }),
        ],
      });

      const redeliver = await tenant.as<Delivery>(
        ['orders:read'],
        'POST',
        `/event-subscriptions/${id}/deliveries/${log[0]!.id}/redeliver`,
        {},
      );
      expect(redeliver.status).toBe(202);
      await waitFor('the redelivery', () => endpoint.received.length >= 3);
      expect(endpoint.received[2]!.body).toBe(first!.body);
      expect(
        verifySignature(
          endpoint.received[2]!.headers['comanda-signature'] as string,
          first!.body,
          secret!,
        ),
      ).toEqual({ valid: true });
      expect(
        (
          await tenant.as(
            ['orders:read'],
            'POST',
            `/event-subscriptions/${id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
            {},
          )
        ).json,
      ).toMatchObject({ status: 404, code: 'subscription.delivery_not_found' });
      expect(
        (await tenant.as(['orders:read'], 'GET', `/event-subscriptions/${id}/deliveries?limit=0`))
          .status,
      ).toBe(400);
    } finally {
      await endpoint.close();
    }
  });
});

describe('orders: webhook subscriptions in a production deployment', () => {
  let platform: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_webhooks_production', {
      env: { ...AUTH_KEYS_ENV, COMANDA_ENVIRONMENT: 'production' },
    });
    tenant = await ordersTenant(platform, 'hooks-prod', 'production');
  }, 120_000);
  afterAll(() => platform?.close());

  it.each([
    ['http://hooks.example.com/x', 'url.not_https'],
    ['https://127.0.0.1/x', 'url.non_public_address'],
    ['https://127.0.0.2:8443/x', 'url.non_public_address'],
    ['https://2130706433/x', 'url.non_public_address'],
    ['https://0x7f.0.0.1/x', 'url.non_public_address'],
    ['https://[::1]/x', 'url.non_public_address'],
    ['https://[::ffff:7f00:1]/x', 'url.non_public_address'],
    ['https://localhost/x', 'url.non_public_address'],
    ['https://10.0.0.5/x', 'url.non_public_address'],
    ['https://172.16.3.4/x', 'url.non_public_address'],
    ['https://192.168.1.1/x', 'url.non_public_address'],
    ['https://169.254.169.254/latest/meta-data/', 'url.non_public_address'],
    ['https://[fe80::1]/x', 'url.non_public_address'],
    ['https://0.0.0.0/x', 'url.non_public_address'],
  ])('refuses %s with 422 %s and stores nothing', async (url, code) => {
    const answer = await tenant.as(['orders:read'], 'POST', '/event-subscriptions', {
      url,
      types: ['order.ready_to_be_placed_in_pos'],
    });
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ code, errors: [expect.objectContaining({ path: 'url' })] });
    expect(
      (await tenant.as<unknown[]>(['orders:read'], 'GET', '/event-subscriptions')).json,
    ).toEqual([]);
  });
});
