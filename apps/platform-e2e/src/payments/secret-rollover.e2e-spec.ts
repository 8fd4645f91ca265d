import { randomUUID } from 'node:crypto';
import { signBody, verifySignature } from '@comanda/outbound';
import { waitFor } from '@comanda/testing';
import { PaymentsWorld, SECRET } from './payments-api';

jest.setTimeout(120_000);

interface MerchantRead {
  name: string;
  partnerUrl: string;
  previousSecretValidUntil: string | null;
}

const NEW_SECRET = 'e2e-partner-secret-rolled-0123456789';
const THIRD_SECRET = 'e2e-partner-secret-third-0123456789';

/**
 * ADR 0070: the merchant's secret is changed in Comanda first, with a grace, while the
 * partner still holds only the old one; nothing is refused in either direction meanwhile.
 */
describe("rolling a merchant's signing secret over, standalone", () => {
  let world: PaymentsWorld;

  beforeAll(async () => {
    world = await PaymentsWorld.start('e2e_secret_rollover', {
      bus: 'in-process',
      partner: 'fake',
    });
  });
  afterAll(() => world?.close());

  const merchantPath = () => `/payments/merchants/${world.merchantId}`;
  const save = async (signingSecret: string, gracePeriodSeconds?: number) => {
    const current = await world.expect<MerchantRead>('GET', merchantPath(), 200);
    return world.call<MerchantRead>('PUT', merchantPath(), {
      name: current.name,
      partnerUrl: current.partnerUrl,
      signingSecret,
      ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    });
  };
  /** A well-formed partner event signed with `secret`, posted as a partner posts it. */
  const postEvent = async (secret: string) => {
    const body = JSON.stringify({
      eventId: `evt-${randomUUID()}`,
      type: 'authorization_succeeded',
      paymentId: `pay-${randomUUID()}`,
      operationId: `op-${randomUUID()}`,
      occurredAt: new Date().toISOString(),
    });
    const response = await fetch(
      `${world.platform.baseUrl}/notifications/merchants/${world.merchantId}/events`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'comanda-signature': signBody(secret, body),
        },
        body,
      },
    );
    return response.status;
  };

  it('signs operations with both secrets and takes events signed with either during the grace; a save without one ends it', async () => {
    const rolled = await save(NEW_SECRET, 600);
    expect(rolled.status).toBe(200);
    const until = Date.parse(rolled.body.previousSecretValidUntil ?? '');
    expect(until).toBeGreaterThan(Date.now() + 590_000);
    await waitFor(
      'the receiver to know the new secret',
      async () => (await postEvent(NEW_SECRET)) === 200,
    );
    expect(await postEvent(SECRET)).toBe(200);

    // The partner still holds only the old secret: it verifies every operation, and every
    // event it signs with the old secret completes the payment.
    const orderId = await world.checkout('ok');
    await world.orderIn(orderId, 'ready');
    const payment = await world.paymentOf(orderId);
    const sent = world.partner.operationsOf(payment.id);
    expect(sent.map((operation) => operation.body.operationType)).toEqual([
      'registration',
      'authorization',
    ]);
    for (const operation of sent) {
      expect(operation.signatureValid).toBe(true);
      expect(verifySignature(operation.signature, operation.rawBody, NEW_SECRET).valid).toBe(true);
    }

    // The same secret saved again (no grace given) leaves the rollover as it is.
    const again = await save(NEW_SECRET);
    expect(again.status).toBe(200);
    expect(again.body.previousSecretValidUntil).toBe(rolled.body.previousSecretValidUntil);

    // A change without a grace ends it: only the secret saved verifies from then on.
    const ended = await save(THIRD_SECRET);
    expect(ended.body.previousSecretValidUntil).toBeNull();
    await waitFor(
      'the receiver to know the third secret',
      async () => (await postEvent(THIRD_SECRET)) === 200,
    );
    expect(await postEvent(NEW_SECRET)).toBe(401);
    expect(await postEvent(SECRET)).toBe(401);
  });

  it('refuses a grace that is not a whole number of seconds up to 30 days', async () => {
    for (const grace of [-1, 1.5, 30 * 24 * 3600 + 1, '60']) {
      const current = await world.expect<MerchantRead>('GET', merchantPath(), 200);
      const answer = await world.call('PUT', merchantPath(), {
        name: current.name,
        partnerUrl: current.partnerUrl,
        signingSecret: THIRD_SECRET,
        gracePeriodSeconds: grace,
      });
      expect(answer.status).toBe(400);
    }
  });
});
