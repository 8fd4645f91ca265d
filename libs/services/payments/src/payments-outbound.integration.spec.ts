import { EventTypes } from '@comanda/contracts';
import { UnitOfWork } from '@comanda/persistence';
import { waitFor } from '@comanda/testing';
import { MerchantRepository } from './persistence/merchant.repository';
import { PaymentsHarness, SECRET, TENANT } from './testing/payments-harness';

jest.setTimeout(60_000);

/** Server-side request forgery: a production deployment calls only public https partners. */
describe('partner URLs in a production deployment (real PostgreSQL and RabbitMQ)', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start('payments_prod', {
      COMANDA_ENVIRONMENT: 'production',
      COMANDA_PUBLIC_URL: 'https://api.comanda.example',
      PAYMENT_OPERATION_TIMEOUT_MS: '1500',
    });
  });
  afterAll(() => harness?.close());

  it.each([
    ['plain http', 'http://partner.example.com/payments'],
    ['loopback', 'https://127.0.0.1/payments'],
    ['loopback, short form', 'https://127.1/payments'],
    ['loopback, hexadecimal', 'https://0x7f000001/payments'],
    ['loopback, decimal', 'https://2130706433/payments'],
    ['IPv6 loopback', 'https://[::1]/payments'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/payments'],
    ['a name resolving to loopback', 'https://localhost/payments'],
    ['a private address', 'https://10.1.2.3/payments'],
    ['another private address', 'https://192.168.0.10/payments'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['credentials in the URL', 'https://user:secret@partner.example.com/payments'],
  ])('refuses to save %s (%s)', async (_label, url) => {
    await expect(harness.configureMerchant(`refused-${Date.now()}`, url)).rejects.toMatchObject({
      status: 422,
      code: 'merchant.partner_url_refused',
    });
  });

  it('refuses at connection time an address that turned non-public after the URL was saved', async () => {
    // As if the partner's DNS answer changed to loopback after the check at save time.
    const url = harness.partnerUrl.replace('http://127.0.0.1', 'https://localhost');
    const now = new Date();
    await harness.service.app.get(UnitOfWork).run((tx) =>
      harness.service.app.get(MerchantRepository).upsert(
        tx,
        {
          id: 'rebound',
          tenantId: TENANT,
          name: 'rebound',
          partnerUrl: url,
          previousSecretValidUntil: null,
          createdAt: now,
          updatedAt: now,
        },
        SECRET,
      ),
    );
    const orderId = await harness.checkout('rebound', 'ok');
    const failed = await waitFor('payment.failed', () =>
      harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
    );
    expect((failed.data as { reason: string }).reason).toBe('registration_timed_out');
    const [operation] = await harness.query<{ last_error: string; send_attempts: number }>(
      `SELECT last_error, send_attempts FROM payments.payment_operations o
       JOIN payments.payments p ON p.id = o.payment_id WHERE p.order_id = $1 AND o.type = 'registration'`,
      [orderId],
    );
    expect(operation?.last_error).toMatch(/loopback/);
    expect(harness.partner.received).toEqual([]);
  });
});
