import { randomUUID } from 'node:crypto';
import { signBody } from '@comanda/outbound';
import { waitFor } from '@comanda/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { merchantKnownAtNotifications, PaymentsStandIn } from './partner-events-observer';

const TENANT = 'tenant-notifications-e2e';
const MERCHANT = `merchant-${randomUUID().slice(0, 8)}`;
const SECRET = 'e2e-merchant-secret';

describe('partner events through the gateway', () => {
  let platform: TestPlatform;
  let payments: PaymentsStandIn;

  const eventsUrl = () => `${platform.baseUrl}/notifications/merchants/${MERCHANT}/events`;
  const anEvent = () => ({
    eventId: `evt-${randomUUID()}`,
    type: 'authorization_succeeded',
    paymentId: `pay-${randomUUID()}`,
    operationId: `op-${randomUUID()}`,
    occurredAt: new Date().toISOString(),
  });
  // As a partner posts: no bearer token, no X-Api-Version, only its signature.
  const post = (body: string, signature?: string) =>
    fetch(eventsUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(signature ? { 'comanda-signature': signature } : {}),
      },
      body,
    });

  beforeAll(async () => {
    platform = await startTestPlatform('e2e_notifications', {});
    payments = await PaymentsStandIn.start(platform, 'payments-stand-in');
    await payments.configureMerchant(TENANT, MERCHANT, SECRET);
    await merchantKnownAtNotifications(platform.baseUrl, MERCHANT, SECRET);
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('stores a signed event once and hands it to payments as payment.partner_event_received', async () => {
    const event = anEvent();
    const body = JSON.stringify(event);

    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post(body, signBody(SECRET, body)));

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(await answers[0].json()).toEqual({ eventId: event.eventId, status: 'stored' });
    expect(await answers[2].json()).toEqual({ eventId: event.eventId, status: 'duplicate' });
    const handed = await waitFor('the event on the bus', () => {
      const found = payments.eventsWith({ eventId: event.eventId });
      return found.length > 0 ? found : undefined;
    });
    expect(handed[0]).toMatchObject({
      type: 'payment.partner_event_received',
      tenantid: TENANT,
      subject: event.paymentId,
      data: { merchantId: MERCHANT, ...event },
    });
    // A later event of the same payment arrives after any second copy would have.
    const later = { ...anEvent(), paymentId: event.paymentId };
    const laterBody = JSON.stringify(later);
    expect((await post(laterBody, signBody(SECRET, laterBody))).status).toBe(200);
    await waitFor('the later event', () => payments.eventsWith({ eventId: later.eventId })[0]);
    expect(payments.eventsWith({ eventId: event.eventId })).toHaveLength(1);
  });

  it('answers an unsigned or badly signed event with a 401 problem and no effect', async () => {
    const event = anEvent();
    const body = JSON.stringify(event);
    for (const signature of [undefined, signBody('wrong', body), signBody(SECRET, `${body} `)]) {
      const response = await post(body, signature);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ code: 'notification.signature_invalid' });
    }
    // Then the genuine one is stored as new: the rejected ones left nothing behind.
    const genuine = await post(body, signBody(SECRET, body));
    expect(await genuine.json()).toEqual({ eventId: event.eventId, status: 'stored' });
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const body = '{"eventId":';
    const response = await post(body, signBody(SECRET, body));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'request.malformed_json' });
  });

  it('answers an event without a JSON media type with a 415 problem and stores nothing', async () => {
    const event = anEvent();
    const body = JSON.stringify(event);
    const signature = signBody(SECRET, body);
    const bytes = new TextEncoder().encode(body);
    // Bytes go without a Content-Type; a string goes as text/plain.
    for (const [sent, contentType] of [
      [bytes, undefined],
      [body, 'text/plain'],
    ] as const) {
      const response = await fetch(eventsUrl(), {
        method: 'POST',
        headers: {
          'comanda-signature': signature,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body: sent,
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toMatchObject({ code: 'request.unsupported_media_type' });
    }
    // Nor labelled with a content coding, which nothing decodes (the body here is plain).
    const coded = await fetch(eventsUrl(), {
      method: 'POST',
      headers: {
        'comanda-signature': signature,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body,
    });
    expect(coded.status).toBe(415);
    expect(coded.headers.get('accept-encoding')).toBe('identity');
    // The same event with its media type is new: the refused ones left nothing behind.
    const accepted = await post(body, signature);
    expect(await accepted.json()).toEqual({ eventId: event.eventId, status: 'stored' });
  });

  it('stores a signed event whose partner client also sends Basic credentials: the signature authenticates it', async () => {
    const event = anEvent();
    const body = JSON.stringify(event);
    const response = await fetch(eventsUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'comanda-signature': signBody(SECRET, body),
        authorization: `Basic ${Buffer.from('partner:secret').toString('base64')}`,
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ eventId: event.eventId, status: 'stored' });
  });
});
