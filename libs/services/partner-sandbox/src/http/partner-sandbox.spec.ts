import { randomUUID } from 'node:crypto';
import type { PaymentOperationType } from '@comanda/contracts';
import { signBody } from '@comanda/outbound';
import { startService, type RunningService } from '@comanda/runtime';
import { waitFor } from '@comanda/testing';
import type { SandboxTransaction } from '../domain/sandbox-transaction';
import { partnerSandboxService } from '../partner-sandbox.service-definition';
import { EventSink } from '../testing/event-sink';

const SECRET = 'sandbox-test-secret';

describe('the partner sandbox', () => {
  let sink: EventSink;
  let sandbox: RunningService;

  beforeAll(async () => {
    sink = await new EventSink(SECRET).start();
    sandbox = await startService(partnerSandboxService, {
      port: 0,
      env: {
        LOG_LEVEL: 'silent',
        PARTNER_SANDBOX_SIGNING_SECRET: SECRET,
        PARTNER_SANDBOX_NOTIFICATIONS_URL: `http://127.0.0.1:${sink.port}/notifications/merchants/{merchantId}`,
        PARTNER_SANDBOX_EVENT_DELAY_MS: '10',
        PARTNER_SANDBOX_DELIVERY_RETRY_DELAYS_MS: '50,50',
      },
    });
  });

  afterAll(async () => {
    await sandbox?.close();
    await sink?.close();
  });

  function operation(
    operationType: PaymentOperationType,
    paymentId: string,
    paymentMethod: string,
    operationId = `op-${randomUUID()}`,
  ) {
    return {
      operationId,
      operationType,
      paymentId,
      orderId: 'order-1',
      merchantId: 'merchant-1',
      amount: { value: 1999, currency: 'EUR' },
      paymentMethod,
    };
  }

  async function send(
    body: object | string,
    options: { secret?: string; idempotencyKey?: string } = {},
  ): Promise<Response> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const key = options.idempotencyKey ?? (body as { operationId?: string }).operationId;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'comanda-signature': signBody(options.secret ?? SECRET, raw),
    };
    if (key) headers['idempotency-key'] = key;
    return fetch(`${sandbox.url}/payments`, { method: 'POST', headers, body: raw });
  }

  /** Sends each operation after the previous one's event, as Comanda does. */
  async function run(paymentMethod: string, operations: PaymentOperationType[]): Promise<string> {
    const paymentId = `pay-${randomUUID()}`;
    for (const [index, type] of operations.entries()) {
      const response = await send(operation(type, paymentId, paymentMethod));
      expect(response.status).toBe(202);
      await waitFor(`event ${index + 1} of ${paymentId}`, () =>
        sink.ofPayment(paymentId).length > index ? true : undefined,
      );
    }
    return paymentId;
  }

  const typesOf = (paymentId: string) =>
    sink.ofPayment(paymentId).map((event) => event.body['type']);

  async function ledger(paymentId: string): Promise<SandboxTransaction> {
    const response = await fetch(`${sandbox.url}/sandbox/transactions/${paymentId}`);
    expect(response.status).toBe(200);
    return (await response.json()) as SandboxTransaction;
  }

  it('runs the full lifecycle with signed events to the merchant notifications URL (rule 1)', async () => {
    const paymentId = await run('sandbox_success', ['registration', 'authorization', 'capture']);
    expect(typesOf(paymentId)).toEqual([
      'registration_succeeded',
      'authorization_succeeded',
      'capture_succeeded',
    ]);
    expect(sink.ofPayment(paymentId).every((event) => event.signatureValid)).toBe(true);
    expect(sink.ofPayment(paymentId)[0].path).toBe('/notifications/merchants/merchant-1/events');
    expect((await ledger(paymentId)).state).toBe('captured');
  });

  it.each([
    ['sandbox_registration_declined', ['registration'], ['registration_failed']],
    ['sandbox_registration_cancelled', ['registration'], ['registration_cancelled']],
    [
      'sandbox_authorization_declined',
      ['registration', 'authorization'],
      ['registration_succeeded', 'authorization_failed'],
    ],
    [
      'sandbox_reservation_lapsed',
      ['registration', 'authorization', 'capture', 'capture', 'annulment'],
      [
        'registration_succeeded',
        'authorization_succeeded',
        'capture_failed',
        'capture_failed',
        'annulment_succeeded',
      ],
    ],
    [
      'sandbox_capture_failing',
      ['registration', 'authorization', 'capture', 'capture', 'annulment'],
      [
        'registration_succeeded',
        'authorization_succeeded',
        'capture_failed',
        'capture_failed',
        'annulment_succeeded',
      ],
    ],
  ] as Array<[string, PaymentOperationType[], string[]]>)(
    '%s: %j ends in %j',
    async (token, operations, events) => {
      const paymentId = await run(token, operations);
      expect(typesOf(paymentId)).toEqual(events);
    },
  );

  it('accepts capture on an annulled transaction, then sends capture_failed (rule 5)', async () => {
    const paymentId = await run('sandbox_success', ['registration', 'annulment', 'capture']);
    expect(typesOf(paymentId)).toEqual([
      'registration_succeeded',
      'annulment_succeeded',
      'capture_failed',
    ]);
    expect(sink.ofPayment(paymentId)[2].body['reason']).toBe('transaction_annulled');
  });

  it('annuls a sandbox_reservation_lapsed transaction on its own side once authorized, as its ledger shows', async () => {
    const paymentId = await run('sandbox_reservation_lapsed', ['registration', 'authorization']);
    expect(typesOf(paymentId)).toEqual(['registration_succeeded', 'authorization_succeeded']);
    const transaction = await ledger(paymentId);
    expect(transaction.state).toBe('annulled');
    expect(transaction.lapsedAt).toEqual(expect.any(String));
    expect(transaction.operations.map((entry) => entry.stateAfter)).toEqual([
      'registered',
      'annulled',
    ]);
  });

  it('accepts but sends no event for sandbox_no_event_authorization', async () => {
    const paymentId = await run('sandbox_no_event_authorization', ['registration']);
    const silent = operation('authorization', paymentId, 'sandbox_no_event_authorization');
    expect((await send(silent)).status).toBe(202);
    // The annulment after it is answered, so the silence above is not a slow delivery.
    expect(
      (await send(operation('annulment', paymentId, 'sandbox_no_event_authorization'))).status,
    ).toBe(202);
    await waitFor('the annulment event', () =>
      sink.ofPayment(paymentId).length === 2 ? true : undefined,
    );
    expect(typesOf(paymentId)).toEqual(['registration_succeeded', 'annulment_succeeded']);
    const { operations } = await ledger(paymentId);
    expect(operations[1]).toMatchObject({ operationType: 'authorization' });
    expect(operations[1].event).toBeUndefined();
  });

  it('aborts a registration whose event meets a receiver answering 500, and sends nothing more (rule 4)', async () => {
    const paymentId = `pay-${randomUUID()}`;
    expect((await send(operation('registration', paymentId, 'sandbox_receiver_500'))).status).toBe(
      202,
    );
    const aborted = await waitFor('the aborted registration', async () => {
      const transaction = await ledger(paymentId);
      return transaction.state === 'aborted' ? transaction : undefined;
    });
    expect(aborted.operations[0].event).toMatchObject({
      type: 'registration_succeeded',
      status: 'aborted',
      attempts: [expect.objectContaining({ status: 500 })],
    });
    expect(sink.ofPayment(paymentId)).toEqual([]);
  });

  it('aborts a registration when the real receiver answers 500, without retrying', async () => {
    const paymentId = `pay-${randomUUID()}`;
    sink.status = (event) => (event.body['paymentId'] === paymentId ? 500 : 200);
    try {
      expect((await send(operation('registration', paymentId, 'sandbox_success'))).status).toBe(
        202,
      );
      await waitFor('the aborted registration', async () =>
        (await ledger(paymentId)).state === 'aborted' ? true : undefined,
      );
      // An authorization after the abort finds no registration.
      expect((await send(operation('authorization', paymentId, 'sandbox_success'))).status).toBe(
        202,
      );
      await waitFor('the authorization event', () =>
        sink.ofPayment(paymentId).length === 2 ? true : undefined,
      );
      expect(typesOf(paymentId)).toEqual(['registration_succeeded', 'authorization_failed']);
    } finally {
      sink.status = () => 200;
    }
  });

  it('retries other events the receiver answers 500 to', async () => {
    const paymentId = await run('sandbox_success', ['registration']);
    let refusals = 0;
    sink.status = (event) => (event.body['paymentId'] === paymentId && refusals++ < 1 ? 503 : 200);
    try {
      expect((await send(operation('authorization', paymentId, 'sandbox_success'))).status).toBe(
        202,
      );
      const delivered = await waitFor('the authorization delivered', async () => {
        const { operations } = await ledger(paymentId);
        return operations[1].event?.status === 'delivered' ? operations[1].event : undefined;
      });
      expect(delivered.attempts.map((attempt) => attempt.status)).toEqual([503, 200]);
    } finally {
      sink.status = () => 200;
    }
  });

  it('runs an operation retried with the same Idempotency-Key once', async () => {
    const paymentId = `pay-${randomUUID()}`;
    const registration = operation('registration', paymentId, 'sandbox_success');
    const answers = [await send(registration), await send(registration), await send(registration)];
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    expect(await answers[2].json()).toMatchObject({ replayed: true });
    await waitFor('the event', () => (sink.ofPayment(paymentId).length > 0 ? true : undefined));
    const { operations } = await ledger(paymentId);
    expect(operations).toHaveLength(1);
    expect(operations[0].replays).toBe(2);

    const reused = {
      ...operation('capture', paymentId, 'sandbox_success'),
      operationId: registration.operationId,
    };
    expect((await send(reused)).status).toBe(400);
  });

  describe('answers 400 and sends no event (rule 7) for', () => {
    it.each([
      ['malformed JSON', '{"operationId": "op-1", "operationType": ', 'request.malformed_json'],
      ['a JSON array', '[]', 'operation.invalid'],
    ])('%s', async (_name, body, code) => {
      const response = await send(body, { idempotencyKey: 'op-1' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code });
    });

    it.each([
      'operationId',
      'operationType',
      'paymentId',
      'orderId',
      'merchantId',
      'amount',
      'paymentMethod',
    ])('a missing %s', async (field) => {
      const paymentId = `pay-${randomUUID()}`;
      const body: Record<string, unknown> = operation('registration', paymentId, 'sandbox_success');
      delete body[field];
      const response = await send(body, { idempotencyKey: 'op-missing' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'operation.invalid',
        errors: [expect.objectContaining({ path: field })],
      });
      expect((await fetch(`${sandbox.url}/sandbox/transactions/${paymentId}`)).status).toBe(404);
    });

    it('a missing Idempotency-Key', async () => {
      const body = JSON.stringify(
        operation('registration', `pay-${randomUUID()}`, 'sandbox_success'),
      );
      const response = await fetch(`${sandbox.url}/payments`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'comanda-signature': signBody(SECRET, body),
        },
        body,
      });
      expect(response.status).toBe(400);
    });
  });

  it('refuses an operation not signed with the merchant secret (401, no event)', async () => {
    const paymentId = `pay-${randomUUID()}`;
    const response = await send(operation('registration', paymentId, 'sandbox_success'), {
      secret: 'wrong',
    });
    expect(response.status).toBe(401);
    expect((await fetch(`${sandbox.url}/sandbox/transactions/${paymentId}`)).status).toBe(404);
  });

  it('lists its tokens', async () => {
    const response = await fetch(`${sandbox.url}/sandbox/tokens`);
    expect(Object.keys((await response.json()) as object)).toContain('sandbox_receiver_500');
  });

  it('describes the answers of its operations in its API description', async () => {
    const document = (await (await fetch(`${sandbox.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const answer = (path: string, method: string, status: string) =>
      JSON.stringify(document.paths[path]?.[method]?.responses[status] ?? null);
    expect(answer('/payments', 'post', '202')).toContain(
      '#/components/schemas/AcceptedOperationView',
    );
    expect(answer('/sandbox/transactions/{paymentId}', 'get', '200')).toContain(
      '#/components/schemas/SandboxTransactionView',
    );
    expect(answer('/sandbox/merchants/{merchantId}', 'put', '200')).toContain(
      '#/components/schemas/SandboxMerchantView',
    );
    expect(answer('/sandbox/tokens', 'get', '200')).toContain('additionalProperties');
  });
});
