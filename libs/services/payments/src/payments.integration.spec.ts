import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventTypes, merchantAnnouncementLabel, type MerchantConfigured } from '@comanda/contracts';
import { TimerService } from '@comanda/messaging';
import { verifySignature } from '@comanda/outbound';
import { UnitOfWork } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import { lockWaiters, waitFor } from '@comanda/testing';
import { PaymentView } from './http/payment.view';
import { LISTED_IGNORED_EVENTS } from './domain/payment';
import { FakePartner, succeed, type ReceivedOperation } from './testing/fake-partner';
import { PaymentsHarness, SECRET, SECRETS_KEY, TENANT } from './testing/payments-harness';
import { ConfigureMerchant } from './usecases/configure-merchant/configure-merchant.usecase';
import { GetPayment } from './usecases/get-payment/get-payment.usecase';

jest.setTimeout(60_000);

const MERCHANT = 'merchant-1';

async function paymentOf(harness: PaymentsHarness, orderId: string): Promise<PaymentView> {
  const id = await waitFor(`the payment of ${orderId}`, () => harness.paymentIdOf(orderId));
  const details = await harness.service.app
    .get(UnitOfWork)
    .run((tx) => harness.service.app.get(GetPayment).execute(tx, TENANT, id));
  return PaymentView.of(details);
}

function waitForState(
  harness: PaymentsHarness,
  orderId: string,
  state: string,
): Promise<PaymentView> {
  return waitFor(`payment of ${orderId} in state ${state}`, async () => {
    const payment = await paymentOf(harness, orderId);
    return payment.state === state && payment;
  });
}

/** The payment ends annulled on a late annulment success, applied from `stateBefore`. */
async function annulledLate(harness: PaymentsHarness, orderId: string, stateBefore: string) {
  const payment = await waitForState(harness, orderId, 'annulled');
  await waitFor('payment.annulled', () =>
    harness.typesOf(orderId).includes(EventTypes.PaymentAnnulled),
  );
  expect(payment.events.at(-1)).toMatchObject({
    trigger: 'annulment_succeeded',
    applied: true,
    stateBefore,
    stateAfter: 'annulled',
  });
  return payment;
}

/**
 * Checks out `checkouts` payments of `merchantId` on a partner that accepts each post and
 * never answers (every post held open for PAYMENT_SEND_REQUEST_TIMEOUT_MS, 10 s), then one
 * of MERCHANT's, which must be authorized meanwhile. Answers how many posts the hanging
 * partner had open once it held `share` of them and the healthy payment went through.
 */
async function postsBesideAHangingPartner(
  harness: PaymentsHarness,
  merchantId: string,
  checkouts: number,
  share: number,
): Promise<number> {
  const hanging = new FakePartner(SECRET, async () => undefined);
  const hangingUrl = await hanging.start();
  try {
    hanging.script('hang', () => ({ status: 202, hang: true }));
    await harness.configureMerchant(merchantId, hangingUrl);
    await Promise.all(
      Array.from({ length: checkouts }, () => harness.checkout(merchantId, 'hang')),
    );
    await waitFor('the hanging partner to hold its share', () => hanging.received.length >= share);
    const orderId = await harness.checkout(MERCHANT, 'healthy');
    await waitFor(
      'payment.authorized beside the hanging partner',
      () => harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
      // Far below the 10 s a hanging post takes.
      { timeoutMs: 4_000 },
    );
    return hanging.received.length;
  } finally {
    await hanging.stop();
  }
}

describe('payments service with a partner over HTTP (real PostgreSQL and RabbitMQ)', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start('payments', {
      PAYMENT_OPERATION_TIMEOUT_MS: '2500',
      RESERVATION_TTL_MS: '600000',
      CAPTURE_RETRY_DELAYS_MS: '200',
      // A failed annulment is final here; its retries have their own suite below.
      ANNULMENT_RETRY_DELAYS_MS: 'none',
    });
    await harness.configureMerchant(MERCHANT);
  });
  afterAll(() => harness?.close());

  it('announces the merchant with its secret sealed, so only the receiver can verify partner events', async () => {
    const configured = await waitFor('payment.merchant_configured', () =>
      harness.observed.find((event) => event.type === EventTypes.MerchantConfigured),
    );
    const data = configured.data as MerchantConfigured;
    expect(Object.keys(data).sort()).toEqual(['merchantId', 'signingSecretSealed']);
    expect(data.merchantId).toBe(MERCHANT);
    expect(JSON.stringify(configured)).not.toContain('partner-secret');
    const box = new SecretBox(Buffer.from(SECRETS_KEY, 'base64url'));
    expect(box.open(data.signingSecretSealed as string, merchantAnnouncementLabel(MERCHANT))).toBe(
      'partner-secret-0123456789',
    );
    // Bound to its merchant: the same value does not open as another's.
    expect(() =>
      box.open(data.signingSecretSealed as string, merchantAnnouncementLabel('another')),
    ).toThrow(/opens with neither/);
    expect(configured.tenantid).toBe('tenant-pay');
  });

  it('runs registration, authorization, then capture after placement, with signed idempotent requests (rule 1)', async () => {
    const orderId = await harness.checkout(MERCHANT, 'ok', 4200);
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    await harness.orderPlaced(orderId, paymentId);
    const payment = await waitForState(harness, orderId, 'captured');
    await waitFor('payment.captured', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentCaptured),
    );
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentAuthorized,
      EventTypes.PaymentCaptured,
    ]);
    const requested = harness
      .eventsOf(orderId)
      .filter((event) => event.type === EventTypes.PaymentOperationRequested)
      .map((event) => (event.data as { operationType: string }).operationType);
    expect(requested).toEqual(['registration', 'authorization', 'capture']);
    const sent = harness.partner.operationsOf(paymentId);
    expect(sent.map((operation) => operation.body.operationType)).toEqual([
      'registration',
      'authorization',
      'capture',
    ]);
    for (const operation of sent) {
      expect(operation.signatureValid).toBe(true);
      expect(operation.idempotencyKey).toBe(operation.body.operationId);
      expect(operation.contentType).toBe('application/json');
      expect(operation.body).toMatchObject({
        paymentId,
        orderId,
        merchantId: MERCHANT,
        amount: { value: 4200, currency: 'EUR' },
        paymentMethod: 'ok',
      });
    }
    expect(new Set(sent.map((operation) => operation.body.operationId)).size).toBe(3);
    expect(payment.operations.map((operation) => operation.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(payment.events.filter((event) => event.applied).map((event) => event.trigger)).toEqual([
      'checkout',
      'registration_succeeded',
      'authorization_succeeded',
      'order_placed',
      'capture_succeeded',
    ]);
  });

  it('sends exactly one annulment when placement fails after authorization, however often it is reported (rule 2)', async () => {
    const orderId = await harness.checkout(MERCHANT, 'ok');
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    for (let copy = 0; copy < 3; copy++) {
      await harness.publish(EventTypes.OrderPlacementFailed, orderId, {
        orderId,
        code: 'POS_OFFLINE',
        message: 'the POS did not answer',
        cause: 'pos',
        paymentId,
      });
    }
    const payment = await waitForState(harness, orderId, 'annulled');
    await waitFor('payment.annulled', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAnnulled),
    );
    // The two later reports are recorded and ignored.
    await waitFor(
      'every placement failure recorded',
      async () =>
        (await paymentOf(harness, orderId)).events.filter(
          (event) => event.trigger === 'order_placement_failed',
        ).length === 3,
    );
    const kinds = harness.partner
      .operationsOf(paymentId)
      .map((operation) => operation.body.operationType);
    expect(kinds).toEqual(['registration', 'authorization', 'annulment']);
    expect(kinds).not.toContain('capture');
    expect(payment.operations.filter((operation) => operation.type === 'annulment')).toHaveLength(
      1,
    );
  });

  it('fails the payment and sends an annulment when no completion event arrives in time (rules 3 and 4)', async () => {
    harness.partner.script('silent-registration', (operation) =>
      operation.operationType === 'registration' ? { status: 202 } : succeed(operation, 1),
    );
    const orderId = await harness.checkout(MERCHANT, 'silent-registration');
    const failed = await waitFor('payment.failed', () =>
      harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
    );
    expect(failed.data).toMatchObject({ orderId, reason: 'registration_timed_out' });
    const payment = await waitForState(harness, orderId, 'annulled');
    expect(payment.failureReason).toBe('registration_timed_out');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'timed_out'],
      ['annulment', 'succeeded'],
    ]);
    expect(harness.typesOf(orderId)).not.toContain(EventTypes.PaymentAuthorized);
  });

  it("lets a partner's event that holds the payment cancel the deadline falling due meanwhile, without a deadlock", async () => {
    harness.partner.script('racing-deadline', (operation) =>
      operation.operationType === 'registration' ? { status: 202 } : succeed(operation, 1),
    );
    const orderId = await harness.checkout(MERCHANT, 'racing-deadline');
    const pending = await waitFor('the registration to be accepted', async () => {
      const payment = await paymentOf(harness, orderId);
      const [operation] = payment.operations;
      return operation?.status === 'accepted' && { payment, operation };
    });
    const dataSource = harness.service.app.get(DataSource);
    const event = dataSource.createQueryRunner();
    await event.connect();
    try {
      // As applying a partner's event does: the payment first, then its timers.
      await event.startTransaction();
      await event.query('SELECT id FROM payments.payments WHERE id = $1 FOR UPDATE', [
        pending.payment.id,
      ]);
      await harness.query(
        `UPDATE payments.timers SET fire_at = now(), next_attempt_at = now()
         WHERE name = 'payment-operation-timeout' AND key = $1`,
        [pending.operation.operationId],
      );
      await waitFor(
        'the deadline to wait for the payment',
        async () => (await lockWaiters(harness)) > 0,
      );
      // Had the firing locked its timer's row before the payment, this cancel would wait for
      // it while it waits for the payment: PostgreSQL would fail one of them after 1 s.
      await event.query(`SET LOCAL lock_timeout = '300ms'`);
      const cancelled = await harness.service.app
        .get(TimerService)
        .cancel(event.manager, 'payment-operation-timeout', pending.operation.operationId);
      await event.commitTransaction();
      expect(cancelled).toBeDefined();
    } finally {
      if (event.isTransactionActive) await event.rollbackTransaction();
      await event.release();
    }
    // The deadline then finds itself cancelled: nothing timed out.
    await waitFor('the deadline to end', async () => (await lockWaiters(harness)) === 0);
    const payment = await paymentOf(harness, orderId);
    expect(payment.operations.map((operation) => operation.status)).toEqual(['accepted']);
    expect(payment.events.map((recorded) => recorded.trigger)).not.toContain(
      'registration_timed_out',
    );
  });

  it.each([
    ['', 'partner answered 400: '],
    // PostgreSQL's text cannot hold a NUL: the record keeps the rest of what the partner said.
    ['bad\u0000request', 'partner answered 400: badrequest'],
  ])(
    'fails at once, without waiting for the timeout, when the partner answers 400 (rule 7), body %j',
    async (body, lastError) => {
      const method = `malformed-${lastError.length}`;
      harness.partner.script(method, () => ({ status: 400, body }));
      const orderId = await harness.checkout(MERCHANT, method);
      const failed = await waitFor(
        'payment.failed',
        () => harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
        // Well inside the 2.5 s operation timeout: the 400 decided it.
        { timeoutMs: 2_000 },
      );
      expect((failed.data as { reason: string }).reason).toMatch(/^registration_rejected/);
      const payment = await paymentOf(harness, orderId);
      expect(payment.state).toBe('failed');
      expect(payment.operations).toEqual([
        expect.objectContaining({
          type: 'registration',
          status: 'rejected',
          sendAttempts: 1,
          lastError,
        }),
      ]);
      expect(harness.partner.operationsOf(payment.id)).toHaveLength(1);
    },
  );

  it('fails and annuls the registered transaction when the partner answers 400 to the authorization', async () => {
    harness.partner.script('authorization-malformed', (operation) =>
      operation.operationType === 'authorization' ? { status: 400 } : succeed(operation, 1),
    );
    const orderId = await harness.checkout(MERCHANT, 'authorization-malformed');
    const failed = await waitFor('payment.failed', () =>
      harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
    );
    expect((failed.data as { reason: string }).reason).toMatch(/^authorization_rejected/);
    const payment = await waitForState(harness, orderId, 'annulled');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'rejected'],
      ['annulment', 'succeeded'],
    ]);
    expect(
      harness.partner.operationsOf(payment.id).map((operation) => operation.body.operationType),
    ).toEqual(['registration', 'authorization', 'annulment']);
    await waitFor('payment.annulled', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAnnulled),
    );
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentFailed,
      EventTypes.PaymentAnnulled,
    ]);
  });

  it('ends annulled when the partner reports its annulment succeeded after that annulment timed out', async () => {
    harness.partner.script('silent', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'silent');
    const paymentId = await waitFor('the payment', () => harness.paymentIdOf(orderId));
    // Registration and its annulment both time out: the payment gives the annulment up.
    await waitForState(harness, orderId, 'annulment_failed');
    const annulment = harness.partner
      .operationsOf(paymentId)
      .find((operation) => operation.body.operationType === 'annulment');
    expect(annulment).toBeDefined();
    await harness.partnerEvent((annulment as ReceivedOperation).body, 'annulment_succeeded');
    const payment = await annulledLate(harness, orderId, 'annulment_failed');
    expect(payment.failureReason).toBe('registration_timed_out');
    // Given up first (the order hears the money may be held), then released after all.
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentFailed,
      EventTypes.PaymentAnnulmentFailed,
      EventTypes.PaymentAnnulled,
    ]);
  });

  it('retries a 503 with the same operation id and Idempotency-Key until the partner accepts', async () => {
    harness.partner.script('flaky', (operation, attempt) =>
      attempt <= 2 ? { status: 503 } : succeed(operation, attempt),
    );
    const orderId = await harness.checkout(MERCHANT, 'flaky');
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    const registrations = harness.partner
      .operationsOf(paymentId)
      .filter((operation) => operation.body.operationType === 'registration');
    expect(registrations.map((operation) => operation.status)).toEqual([503, 503, 202]);
    expect(new Set(registrations.map((operation) => operation.idempotencyKey)).size).toBe(1);
    expect(new Set(registrations.map((operation) => operation.rawBody)).size).toBe(1);
    expect(registrations[0]?.idempotencyKey).toBe(registrations[0]?.body.operationId);
  });

  it("sends a merchant's operations while another merchant's partner hangs", async () => {
    // More than one look claims, and more than its share of the 64 slots (16).
    expect(await postsBesideAHangingPartner(harness, 'merchant-hanging', 20, 16)).toBe(16);
  });

  it('never follows a redirect from the partner', async () => {
    const target = new FakePartner('other', async () => undefined);
    const targetUrl = await target.start();
    try {
      harness.partner.script('redirect', (operation) =>
        operation.operationType === 'registration'
          ? { status: 307, headers: { location: targetUrl } }
          : succeed(operation, 1),
      );
      const orderId = await harness.checkout(MERCHANT, 'redirect');
      const failed = await waitFor('payment.failed', () =>
        harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
      );
      expect((failed.data as { reason: string }).reason).toBe('registration_timed_out');
      expect(target.received).toEqual([]);
      const payment = await paymentOf(harness, orderId);
      expect(payment.operations[0]?.lastError).toMatch(/307/);
    } finally {
      await target.stop();
    }
  });

  it('ignores duplicate, late and out-of-order partner events and records each of them', async () => {
    harness.partner.script('manual', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'manual');
    const registration = await waitFor('the registration request', async () => {
      const id = await harness.paymentIdOf(orderId);
      return id ? harness.partner.operationsOf(id)[0] : undefined;
    });
    const recorded = (count: number) =>
      waitFor(`${count} events recorded`, async () => {
        const payment = await paymentOf(harness, orderId);
        return payment.events.length === count && payment;
      });
    // Out of order: a capture success naming the registration, before the real success.
    await harness.partnerEvent(registration.body, 'capture_succeeded');
    await recorded(2);
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    await recorded(3);
    // A duplicate (the partner re-posted it as a new event) and a late contradiction.
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    await harness.partnerEvent(registration.body, 'registration_failed');
    const payment = await recorded(5);
    expect(payment.state).toBe('authorization_pending');
    expect(payment.events.slice(0, 3).map((event) => [event.trigger, event.applied])).toEqual([
      ['checkout', true],
      ['capture_succeeded', false],
      ['registration_succeeded', true],
    ]);
    expect(payment.events.slice(3).every((event) => !event.applied)).toBe(true);
    expect(
      payment.events
        .slice(3)
        .map((event) => event.trigger)
        .sort(),
    ).toEqual(['registration_failed', 'registration_succeeded']);
    expect(harness.typesOf(orderId)).toEqual([EventTypes.PaymentRegistered]);
  });

  it('lists the first ignored partner events one by one and counts the later ones on the last of them', async () => {
    harness.partner.script('manual', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'manual');
    const registration = await waitFor('the registration request', async () => {
      const id = await harness.paymentIdOf(orderId);
      return id ? harness.partner.operationsOf(id)[0] : undefined;
    });
    // Out of order every time (a capture before any authorization): each one is ignored.
    const sent = LISTED_IGNORED_EVENTS + 3;
    for (let i = 0; i < sent; i++) {
      await harness.partnerEvent(registration.body, 'capture_succeeded');
    }
    const payment = await waitFor('every ignored event recorded', async () => {
      const read = await paymentOf(harness, orderId);
      const last = read.events.at(-1);
      return read.events.length === 1 + LISTED_IGNORED_EVENTS && last?.repeats === 4 && read;
    });
    const ignored = payment.events.slice(1);
    expect(ignored.every((event) => event.trigger === 'capture_succeeded' && !event.applied)).toBe(
      true,
    );
    expect(ignored.slice(0, -1).every((event) => event.repeats === 1)).toBe(true);
    expect(ignored.slice(0, -1).every((event) => event.lastRecordedAt === null)).toBe(true);
    expect(Date.parse(String(ignored.at(-1)?.lastRecordedAt))).toBeGreaterThanOrEqual(
      Date.parse(String(ignored.at(-1)?.recordedAt)),
    );
    // An applied event is listed as ever after the ignored ones reached their limit.
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    const after = await waitForState(harness, orderId, 'authorization_pending');
    expect(after.events.at(-1)).toMatchObject({
      trigger: 'registration_succeeded',
      applied: true,
      repeats: 1,
    });
  });

  it('picks the saga up after restarts: events that arrived while it was down, and deadlines set before', async () => {
    harness.partner.script('silent', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'silent');
    const paymentId = await waitFor('the payment', () => harness.paymentIdOf(orderId));
    const registration = await waitFor(
      'the registration request',
      () => harness.partner.operationsOf(paymentId)[0],
    );
    await harness.stop();
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    await harness.start();
    await waitFor('the authorization sent by the new process', () =>
      harness.partner
        .operationsOf(paymentId)
        .some((operation) => operation.body.operationType === 'authorization'),
    );
    await harness.stop();
    await harness.start();
    // The authorization's timeout timer, set before the restart, still decides.
    const payment = await waitForState(harness, orderId, 'annulment_failed');
    expect(payment.failureReason).toBe('authorization_timed_out');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'timed_out'],
      ['annulment', 'timed_out'],
    ]);
    const sent = harness.partner
      .operationsOf(paymentId)
      .map((operation) => operation.body.operationType);
    expect(sent).toEqual(['registration', 'authorization', 'annulment']);
  });

  it("ignores a partner event that names another merchant's payment", async () => {
    harness.partner.script('manual', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'manual');
    const paymentId = await waitFor('the payment', () => harness.paymentIdOf(orderId));
    const registration = await waitFor(
      'the registration request',
      () => harness.partner.operationsOf(paymentId)[0],
    );
    // Another merchant's partner, verified by the receiver with its own secret.
    await harness.partnerEvent(
      { ...registration.body, merchantId: 'merchant-2' },
      'registration_failed',
    );
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    const payment = await waitForState(harness, orderId, 'authorization_pending');
    expect(payment.events.map((event) => event.trigger)).toEqual([
      'checkout',
      'registration_succeeded',
    ]);
  });

  it('records and ignores partner events naming ids that are not ours, without failing the consumer', async () => {
    harness.partner.script('manual', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'manual');
    const paymentId = await waitFor('the payment', () => harness.paymentIdOf(orderId));
    const registration = await waitFor(
      'the registration request',
      () => harness.partner.operationsOf(paymentId)[0],
    );
    await harness.partnerEvent(
      { ...registration.body, paymentId: 'pay-not-a-uuid' },
      'registration_failed',
    );
    await harness.partnerEvent(
      { ...registration.body, operationId: 'op-not-a-uuid' },
      'registration_failed',
    );
    const recorded = await waitFor('the foreign operation id recorded', async () => {
      const payment = await paymentOf(harness, orderId);
      return payment.events.find((event) => event.operationId === 'op-not-a-uuid');
    });
    expect(recorded.applied).toBe(false);
    await harness.partnerEvent(registration.body, 'registration_succeeded');
    await waitForState(harness, orderId, 'authorization_pending');
  });

  it('gives a new merchant id to the first of two tenants writing it at once, and announces only its secret', async () => {
    const app = harness.service.app;
    const configure = app.get(ConfigureMerchant);
    const id = `merchant-race-${randomUUID().slice(0, 8)}`;
    const input = (signingSecret: string) => ({
      name: id,
      partnerUrl: harness.partnerUrl,
      signingSecret,
    });
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
    let firstWrote!: () => void;
    const firstWritten = new Promise<void>((resolve) => (firstWrote = resolve));
    const first = app.get(UnitOfWork).run(async (tx) => {
      const written = await configure.execute(
        tx,
        'tenant-first',
        id,
        input('secret-of-the-first-0'),
      );
      firstWrote();
      await firstMayCommit;
      return written;
    });
    await firstWritten;
    // The second finds no row to lock (the first has not committed) and waits in its write.
    const second = app
      .get(UnitOfWork)
      .run((tx) => configure.execute(tx, 'tenant-second', id, input('secret-of-the-second')))
      .then(
        () => 'written',
        (error: { code?: string }) => error.code,
      );
    await waitFor(
      'the second write to wait for the first',
      async () => (await lockWaiters(app.get(DataSource))) > 0,
    );
    commitFirst();
    expect((await first).created).toBe(true);
    expect(await second).toBe('merchant.id_taken');
    // Announced in the writing transaction: the outbox holds every announcement there is.
    const announced = (await app
      .get(DataSource)
      .query(`SELECT tenant_id FROM payments.outbox WHERE event_type = $1 AND subject = $2`, [
        EventTypes.MerchantConfigured,
        id,
      ])) as Array<{ tenant_id: string }>;
    expect(announced.map((row) => row.tenant_id)).toEqual(['tenant-first']);
  });

  it('fails the checkout visibly when the merchant is unknown', async () => {
    const orderId = await harness.checkout('no-such-merchant', 'ok');
    const failed = await waitFor('payment.failed', () =>
      harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentFailed),
    );
    expect((failed.data as { reason: string }).reason).toMatch(/^merchant_unknown/);
  });
});

describe('a partner that hangs, with few send slots', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    // 8 slots: a quarter, 2, for each partner address.
    harness = await PaymentsHarness.start('payments_partner_share', {
      PAYMENT_OPERATION_TIMEOUT_MS: '30000',
      PAYMENT_SEND_CONCURRENCY: '8',
    });
    await harness.configureMerchant(MERCHANT);
  });
  afterAll(() => harness?.close());

  it("holds at most its share of the slots, and another partner's payments go through", async () => {
    // More registrations than there are slots.
    expect(await postsBesideAHangingPartner(harness, 'merchant-hanging-share', 12, 2)).toBe(2);
  });
});

describe('capture retries until the reservation expires (rule 6)', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start('payments_capture', {
      PAYMENT_OPERATION_TIMEOUT_MS: '5000',
      RESERVATION_TTL_MS: '4000',
      CAPTURE_RETRY_DELAYS_MS: '300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300',
    });
    await harness.configureMerchant(MERCHANT);
  });
  afterAll(() => harness?.close());

  it('retries capture after capture_failed, then sends one annulment and no capture after it', async () => {
    harness.partner.script('capture-fails', (operation) =>
      operation.operationType === 'capture'
        ? { status: 202, event: 'capture_failed' }
        : succeed(operation, 1),
    );
    const orderId = await harness.checkout(MERCHANT, 'capture-fails');
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    await harness.orderPlaced(orderId, paymentId);
    const payment = await waitForState(harness, orderId, 'annulled');
    await waitFor('payment.annulled', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAnnulled),
    );
    const kinds = harness.partner
      .operationsOf(paymentId)
      .map((operation) => operation.body.operationType);
    const annulmentAt = kinds.indexOf('annulment');
    expect(kinds.filter((kind) => kind === 'capture').length).toBeGreaterThanOrEqual(2);
    expect(kinds.filter((kind) => kind === 'annulment')).toHaveLength(1);
    expect(kinds.slice(annulmentAt + 1)).toEqual([]);
    const reservationEnd = new Date(payment.reservationExpiresAt as string).getTime();
    for (const capture of payment.operations.filter((operation) => operation.type === 'capture')) {
      expect(new Date(capture.createdAt).getTime()).toBeLessThan(reservationEnd);
    }
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentAuthorized,
      EventTypes.PaymentAnnulled,
    ]);
  });

  async function sealedSecretOf(merchantId: string): Promise<Record<string, unknown>> {
    const [row] = await harness.query<Record<string, unknown>>(
      'SELECT * FROM payments.merchants WHERE id = $1',
      [merchantId],
    );
    return row as Record<string, unknown>;
  }

  /** A checkout whose registration reaches the partner; returns what the partner received. */
  async function registrationAtPartner(): Promise<ReceivedOperation> {
    harness.partner.script('held', () => ({ status: 202 }));
    const orderId = await harness.checkout(MERCHANT, 'held');
    const paymentId = await waitFor('the payment', () => harness.paymentIdOf(orderId));
    return waitFor(
      'the registration at the partner',
      () => harness.partner.operationsOf(paymentId)[0],
    );
  }

  it('keeps the merchant secret sealed in its table, and signs operations with it all the same', async () => {
    const row = await sealedSecretOf(MERCHANT);
    expect(Object.keys(row)).not.toContain('signing_secret');
    expect(row['signing_secret_sealed']).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    const box = new SecretBox(Buffer.from(SECRETS_KEY, 'base64url'));
    expect(box.open(row['signing_secret_sealed'] as string, `payments.merchants:${MERCHANT}`)).toBe(
      SECRET,
    );
    // The partner verifies the signature with the secret it was given.
    expect((await registrationAtPartner()).signatureValid).toBe(true);
  });

  // Last: the service runs under another key from here on.
  it('re-seals merchant secrets (and a secret kept during a rollover) with a new COMANDA_SECRETS_KEY at start, and keeps signing with both', async () => {
    // A rollover in progress (ADR 0070): the partner's SECRET stays valid beside the new one.
    const rolled = 'rolled-over-secret-0123456789';
    await harness.configureMerchant(MERCHANT, undefined, {
      signingSecret: rolled,
      gracePeriodSeconds: 600,
    });
    const before = await sealedSecretOf(MERCHANT);
    const newKey = randomBytes(32).toString('base64url');
    await harness.restartWith({
      COMANDA_SECRETS_KEY: newKey,
      COMANDA_PREVIOUS_SECRETS_KEY: SECRETS_KEY,
    });
    const after = await sealedSecretOf(MERCHANT);
    const newBox = new SecretBox(Buffer.from(newKey, 'base64url'));
    const oldBox = new SecretBox(Buffer.from(SECRETS_KEY, 'base64url'));
    for (const [column, label, secret] of [
      ['signing_secret_sealed', `payments.merchants:${MERCHANT}`, rolled],
      ['previous_secret_sealed', `payments.merchants:${MERCHANT}:previous`, SECRET],
    ] as const) {
      expect(after[column]).not.toBe(before[column]);
      expect(newBox.open(after[column] as string, label)).toBe(secret);
      expect(() => oldBox.open(after[column] as string, label)).toThrow();
    }
    const registration = await registrationAtPartner();
    // The partner holds SECRET; the new secret signs it too.
    expect(registration.signatureValid).toBe(true);
    expect(verifySignature(registration.signature, registration.rawBody, rolled).valid).toBe(true);
  });
});

describe('a capture the partner never accepts in time (ADR 0052)', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start('payments_capture_outage', {
      PAYMENT_OPERATION_TIMEOUT_MS: '1500',
      RESERVATION_TTL_MS: '60000',
      CAPTURE_RETRY_DELAYS_MS: '300,300,300',
    });
    await harness.configureMerchant(MERCHANT);
  });
  afterAll(() => harness?.close());

  it('retries with a new capture after an outage at capture time, and captures, annulling nothing', async () => {
    let firstCapture: string | undefined;
    harness.partner.script('capture-outage', (operation, attempt) => {
      if (operation.operationType !== 'capture') return succeed(operation, attempt);
      firstCapture ??= operation.operationId;
      return operation.operationId === firstCapture ? { status: 503 } : succeed(operation, attempt);
    });
    const orderId = await harness.checkout(MERCHANT, 'capture-outage');
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    await harness.orderPlaced(orderId, paymentId);
    const payment = await waitForState(harness, orderId, 'captured');
    expect(payment.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'succeeded'],
      ['capture', 'timed_out'],
      ['capture', 'succeeded'],
    ]);
    const atPartner = harness.partner.operationsOf(paymentId);
    expect(atPartner.filter((operation) => operation.body.operationType === 'annulment')).toEqual(
      [],
    );
    await waitFor('payment.captured', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentCaptured),
    );
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentAuthorized,
      EventTypes.PaymentCaptured,
    ]);
  });
});

describe('annulment retries until the reservation expires (ADR 0042)', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start('payments_annulment', {
      PAYMENT_OPERATION_TIMEOUT_MS: '5000',
      RESERVATION_TTL_MS: '4000',
      ANNULMENT_RETRY_DELAYS_MS: '300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300',
    });
    await harness.configureMerchant(MERCHANT);
  });
  afterAll(() => harness?.close());

  /** Authorized, then the POS failed the order: the payment must be annulled (rule 2). */
  async function placementFailed(paymentMethod: string): Promise<[string, string]> {
    const orderId = await harness.checkout(MERCHANT, paymentMethod);
    await waitFor('payment.authorized', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAuthorized),
    );
    const paymentId = (await harness.paymentIdOf(orderId)) as string;
    await harness.publish(EventTypes.OrderPlacementFailed, orderId, {
      orderId,
      code: 'POS_OFFLINE',
      message: 'the POS did not answer',
      cause: 'pos',
      paymentId,
    });
    return [orderId, paymentId];
  }

  /** A partner whose first `failures` annulments of a payment end in annulment_failed. */
  function annulmentFailsAtFirst(paymentMethod: string, failures: number): void {
    const annulments = new Map<string, Set<string>>();
    harness.partner.script(paymentMethod, (operation) => {
      if (operation.operationType !== 'annulment') return succeed(operation, 1);
      const seen = annulments.get(operation.paymentId) ?? new Set<string>();
      seen.add(operation.operationId);
      annulments.set(operation.paymentId, seen);
      return seen.size <= failures
        ? { status: 202, event: 'annulment_failed' }
        : succeed(operation, 1);
    });
  }

  it('retries a failed annulment with a new operation until the partner annuls', async () => {
    annulmentFailsAtFirst('annulment-fails-twice', 2);
    const [orderId, paymentId] = await placementFailed('annulment-fails-twice');
    const payment = await waitForState(harness, orderId, 'annulled');
    await waitFor('payment.annulled', () =>
      harness.typesOf(orderId).includes(EventTypes.PaymentAnnulled),
    );
    const annulments = payment.operations.filter((operation) => operation.type === 'annulment');
    expect(annulments.map((operation) => operation.status)).toEqual([
      'failed',
      'failed',
      'succeeded',
    ]);
    expect(new Set(annulments.map((operation) => operation.operationId)).size).toBe(3);
    expect(payment.annulmentFailures).toBe(2);
    const sent = harness.partner.operationsOf(paymentId);
    expect(sent.map((operation) => operation.body.operationType)).toEqual([
      'registration',
      'authorization',
      'annulment',
      'annulment',
      'annulment',
    ]);
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentAuthorized,
      EventTypes.PaymentAnnulled,
    ]);
  });

  it("ends annulled when the first annulment's success arrives while its retry is in flight (ADR 0050)", async () => {
    // The first annulment is answered annulment_failed; the retry is accepted and never answered.
    const annulments = new Map<string, number>();
    harness.partner.script('first-annulment-late', (operation) => {
      if (operation.operationType !== 'annulment') return succeed(operation, 1);
      const count = (annulments.get(operation.paymentId) ?? 0) + 1;
      annulments.set(operation.paymentId, count);
      return count === 1 ? { status: 202, event: 'annulment_failed' } : { status: 202 };
    });
    const [orderId, paymentId] = await placementFailed('first-annulment-late');
    const sentAnnulments = () =>
      harness.partner
        .operationsOf(paymentId)
        .filter((operation) => operation.body.operationType === 'annulment');
    await waitFor('the retry to reach the partner', () => sentAnnulments().length === 2);

    // The partner did carry out the first annulment after all, and says so late.
    await harness.partnerEvent(sentAnnulments()[0].body, 'annulment_succeeded');
    const payment = await annulledLate(harness, orderId, 'annulling');
    expect(harness.typesOf(orderId)).toEqual([
      EventTypes.PaymentRegistered,
      EventTypes.PaymentAuthorized,
      EventTypes.PaymentAnnulled,
    ]);
    expect(payment.operations.at(-1)).toMatchObject({ type: 'annulment', status: 'superseded' });
  });

  it("stops sending the retry an earlier annulment's late success made needless", async () => {
    // The first annulment fails; the partner answers 503 to the retry, which is sent again.
    const annulments = new Map<string, number>();
    harness.partner.script('retry-unreachable', (operation) => {
      if (operation.operationType !== 'annulment') return succeed(operation, 1);
      const count = (annulments.get(operation.paymentId) ?? 0) + 1;
      annulments.set(operation.paymentId, count);
      return count === 1 ? { status: 202, event: 'annulment_failed' } : { status: 503 };
    });
    const [orderId, paymentId] = await placementFailed('retry-unreachable');
    const sentAnnulments = () =>
      harness.partner
        .operationsOf(paymentId)
        .filter((operation) => operation.body.operationType === 'annulment');
    await waitFor('the retry to be sent twice', () => sentAnnulments().length >= 3);

    await harness.partnerEvent(sentAnnulments()[0].body, 'annulment_succeeded');
    const payment = await annulledLate(harness, orderId, 'annulling');
    expect(payment.operations.at(-1)).toMatchObject({ type: 'annulment', status: 'superseded' });
    const sent = sentAnnulments().length;
    // The sender's next attempts would have come within 2 s (back-off 0.5, 1, 2 s).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(sentAnnulments()).toHaveLength(sent);
  });

  it('stops retrying when the reservation expires, and sends no annulment after it', async () => {
    annulmentFailsAtFirst('annulment-always-fails', Number.MAX_SAFE_INTEGER);
    const [orderId, paymentId] = await placementFailed('annulment-always-fails');
    const payment = await waitForState(harness, orderId, 'annulment_failed');
    const annulments = payment.operations.filter((operation) => operation.type === 'annulment');
    expect(annulments.length).toBeGreaterThanOrEqual(2);
    expect(annulments.every((operation) => operation.status === 'failed')).toBe(true);
    const reservationEnd = new Date(payment.reservationExpiresAt as string).getTime();
    for (const annulment of annulments) {
      expect(new Date(annulment.createdAt).getTime()).toBeLessThan(reservationEnd);
    }
    // Given up for good: nothing more goes to the partner.
    const count = harness.partner.operationsOf(paymentId).length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(harness.partner.operationsOf(paymentId)).toHaveLength(count);
    expect(harness.typesOf(orderId)).not.toContain(EventTypes.PaymentAnnulled);
    // The order hears that the money may still be held.
    const gaveUp = await waitFor('payment.annulment_failed', () =>
      harness.eventsOf(orderId).find((event) => event.type === EventTypes.PaymentAnnulmentFailed),
    );
    expect(gaveUp.data).toMatchObject({
      paymentId,
      orderId,
      reason: expect.stringMatching(/attempt/),
    });
  });
});
