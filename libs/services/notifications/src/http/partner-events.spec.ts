import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  createCloudEvent,
  EventTypes,
  merchantAnnouncementLabel,
  type CloudEvent,
  type MerchantConfigured,
} from '@comanda/contracts';
import { RabbitMqBus } from '@comanda/messaging';
import { signBody } from '@comanda/outbound';
import { startService, type RunningService } from '@comanda/runtime';
import { SecretBox } from '@comanda/security';
import {
  createTestBroker,
  disposePlatformBroker,
  createTestDatabase,
  TcpProxy,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import { notificationsService } from '../notifications.service-definition';
import type { PartnerEvent } from '../domain/partner-event';
import { aPartnerEvent } from '../testing/partner-event-builder';

const OBSERVER_QUEUE = 'notifications-observer';
const TENANT = 'tenant-notifications';
const MERCHANT = 'merchant-a';
const SECRET = 'whsec-merchant-a-ünïcode';
const SECRETS_KEY = randomBytes(32).toString('base64url');
const box = new SecretBox(Buffer.from(SECRETS_KEY, 'base64url'));

describe('the partner event receiver', () => {
  let database: TestDatabase;
  let broker: TestBroker;
  let proxy: TcpProxy;
  let bus: RabbitMqBus;
  let observer: RabbitMqBus;
  let service: RunningService;
  let sql: Client;
  const published: CloudEvent[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('notifications');
    broker = await createTestBroker('notifications');
    const server = new URL(database.url);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    const busOptions = {
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
    };
    bus = new RabbitMqBus({ ...busOptions, connectionName: 'notifications-under-test' });
    observer = new RabbitMqBus({ ...busOptions, connectionName: 'notifications-observer' });
    await observer.subscribe({
      queue: OBSERVER_QUEUE,
      eventTypes: [EventTypes.PartnerEventReceived],
      retry: { delaysMs: [] },
      handler: async (message) => {
        published.push(message.event);
      },
    });
    service = await startService(notificationsService, {
      port: 0,
      databaseUrl: proxy.urlFor(database.url),
      bus,
      env: {
        LOG_LEVEL: 'silent',
        OUTBOX_POLL_MS: '100',
        TIMER_POLL_MS: '100',
        COMANDA_SECRETS_KEY: SECRETS_KEY,
      },
    });
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    // As payments announces a merchant: the only way the receiver learns its secret.
    await announce(MERCHANT, {
      merchantId: MERCHANT,
      signingSecretSealed: box.seal(SECRET, merchantAnnouncementLabel(MERCHANT)),
    });
    await waitFor('the merchant secret learnt from the bus', () => knows(MERCHANT));
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    // The last test cut the database for good: the final outbox flush cannot reach it.
    await service?.close().catch((error: unknown) => {
      if (!String(error).includes('ECONNREFUSED')) throw error;
    });
    await bus?.close();
    await observer?.close();
    await proxy?.stop();
    await database?.drop();
    if (broker) await disposePlatformBroker(broker, [`${broker.queuePrefix}${OBSERVER_QUEUE}`]);
  });

  function announce(merchantId: string, data: MerchantConfigured): Promise<void> {
    return observer.publish(
      createCloudEvent('/comanda/payments', {
        type: EventTypes.MerchantConfigured,
        tenantId: TENANT,
        subject: merchantId,
        data,
      }),
    );
  }

  async function knows(merchantId: string): Promise<true | undefined> {
    const { rows } = await sql.query(
      'SELECT 1 FROM notifications.merchant_secrets WHERE merchant_id = $1',
      [merchantId],
    );
    return rows.length === 1 || undefined;
  }

  function post(
    body: string,
    signature: string | undefined,
    merchantId: string = MERCHANT,
  ): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signature !== undefined) headers['comanda-signature'] = signature;
    return fetch(`${service.url}/notifications/merchants/${merchantId}/events`, {
      method: 'POST',
      headers,
      body,
    });
  }

  async function storedEvents(eventId: string): Promise<number> {
    const { rows } = await sql.query(
      'SELECT count(*)::int AS n FROM notifications.partner_events WHERE event_id = $1',
      [eventId],
    );
    return (rows[0] as { n: number }).n;
  }

  it('stores a genuine event and hands it to payments as payment.partner_event_received', async () => {
    const event = aPartnerEvent({ type: 'capture_failed', reason: 'insufficient funds' });
    // Key order and spacing no serializer would reproduce: the signature covers these bytes.
    // Members of its own, even named like object internals, are the partner's: ignored.
    const body = `{ "type":"${event.type}",  "eventId":"${event.eventId}", "paymentId":"${event.paymentId}", "operationId":"${event.operationId}", "occurredAt":"${event.occurredAt}", "reason":"${event.reason}", "partnerExtra": 1, "meta": {"constructor": "v2", "valueOf": 1} }`;

    const response = await post(body, signBody(SECRET, body));

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ eventId: event.eventId, status: 'stored' });
    expect(await storedEvents(event.eventId)).toBe(1);
    const onBus = await waitFor('the event on RabbitMQ', () =>
      published.find(
        (candidate) =>
          candidate.data && (candidate.data as { eventId?: string }).eventId === event.eventId,
      ),
    );
    expect(onBus).toMatchObject({
      type: 'payment.partner_event_received',
      tenantid: TENANT,
      subject: event.paymentId,
      source: '/comanda/notifications',
      data: { merchantId: MERCHANT, ...event },
    });
  });

  it('keeps the secret it learnt sealed in its table, and verifies signatures with it', async () => {
    const { rows } = await sql.query(
      'SELECT * FROM notifications.merchant_secrets WHERE merchant_id = $1',
      [MERCHANT],
    );
    const row = rows[0] as Record<string, unknown>;
    expect(Object.keys(row)).not.toContain('signing_secret');
    expect(row['signing_secret_sealed']).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('whsec');
    expect(
      new SecretBox(Buffer.from(SECRETS_KEY, 'base64url')).open(
        row['signing_secret_sealed'] as string,
        `notifications.merchant_secrets:${MERCHANT}`,
      ),
    ).toBe(SECRET);
    const body = JSON.stringify(aPartnerEvent());
    expect((await post(body, signBody(SECRET, body))).status).toBe(200);
    expect((await post(body, signBody('another-secret', body))).status).toBe(401);
  });

  it('learns a secret an older payments announced in clear (an upgrade), and verifies with it', async () => {
    const merchant = 'merchant-announced-in-clear';
    await announce(merchant, {
      merchantId: merchant,
      signingSecret: 'whsec-from-an-older-payments',
    });
    await waitFor('the secret announced in clear', () => knows(merchant));
    const body = JSON.stringify(aPartnerEvent());
    const signed = signBody('whsec-from-an-older-payments', body);
    expect((await post(body, signed, merchant)).status).toBe(200);
  });

  it('learns no secret from a sealed value bound to another merchant, or from an announcement without one', async () => {
    const moved = 'merchant-with-a-moved-secret';
    const empty = 'merchant-announced-without-a-secret';
    const after = 'merchant-announced-after-them';
    await announce(moved, {
      merchantId: moved,
      signingSecretSealed: box.seal('whsec-of-merchant-a', merchantAnnouncementLabel(MERCHANT)),
    });
    await announce(empty, { merchantId: empty });
    await announce(after, {
      merchantId: after,
      signingSecretSealed: box.seal('whsec-after', merchantAnnouncementLabel(after)),
    });
    await waitFor('the announcement after them', () => knows(after));
    // The moved value failed its delivery (retried: the key may be newer than ours), the
    // empty one went to the dead letters at once; neither merchant has a secret.
    const failed = await waitFor('the failed delivery of the moved value', async () => {
      const { rows } = await sql.query(
        'SELECT last_error FROM notifications.deliveries WHERE last_error LIKE $1',
        [`%payment.merchant_configured:${moved}%`],
      );
      return (rows as Array<{ last_error: string }>)[0];
    });
    expect(failed.last_error).toMatch(/opens with neither COMANDA_SECRETS_KEY/);
    const parked = await waitFor('the announcement without a secret, dead-lettered', async () => {
      const { rows } = await sql.query(
        `SELECT error FROM notifications.dead_letters WHERE event->>'subject' = $1`,
        [empty],
      );
      return (rows as Array<{ error: string }>)[0];
    });
    expect(parked.error).toMatch(/carries no signing secret/);
    expect(await knows(moved)).toBeUndefined();
    expect(await knows(empty)).toBeUndefined();
    const body = JSON.stringify(aPartnerEvent());
    expect((await post(body, signBody('whsec-of-merchant-a', body), moved)).status).not.toBe(200);
  });

  it('has one effect when the same genuine event is posted three times', async () => {
    const event = aPartnerEvent();
    const body = JSON.stringify(event);
    const answers: Array<{ status: number; body: unknown }> = [];
    for (let i = 0; i < 3; i++) {
      const response = await post(body, signBody(SECRET, body));
      answers.push({ status: response.status, body: await response.json() });
    }

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => (answer.body as { status: string }).status)).toEqual([
      'stored',
      'duplicate',
      'duplicate',
    ]);
    expect(await storedEvents(event.eventId)).toBe(1);
    // A later event is published after the first one: once it is seen, a second copy of the
    // first would have been seen too (one aggregate's events leave the outbox in order).
    const marker = aPartnerEvent({ paymentId: event.paymentId });
    const markerBody = JSON.stringify(marker);
    expect((await post(markerBody, signBody(SECRET, markerBody))).status).toBe(200);
    await waitFor('the marker event on RabbitMQ', () =>
      published.find(
        (candidate) => (candidate.data as { eventId: string }).eventId === marker.eventId,
      ),
    );
    expect(
      published.filter(
        (candidate) => (candidate.data as { eventId: string }).eventId === event.eventId,
      ),
    ).toHaveLength(1);
  });

  it('refuses an eventId it already stored when the body differs (409), keeping and delivering only the first', async () => {
    const first = aPartnerEvent({ type: 'authorization_succeeded' });
    const firstBody = JSON.stringify(first);
    expect((await post(firstBody, signBody(SECRET, firstBody))).status).toBe(200);
    // The partner's real event for another operation, under an eventId it used before.
    const reused = aPartnerEvent({
      eventId: first.eventId,
      paymentId: first.paymentId,
      type: 'capture_failed',
      reason: 'insufficient funds',
    });
    const reusedBody = JSON.stringify(reused);

    const response = await post(reusedBody, signBody(SECRET, reusedBody));

    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 409,
      code: 'notification.event_id_reused',
    });
    const { rows } = await sql.query(
      'SELECT raw_body FROM notifications.partner_events WHERE event_id = $1',
      [first.eventId],
    );
    expect(rows).toEqual([{ raw_body: firstBody }]);
    // The same bytes again are still a duplicate, answered 200 with no second effect.
    const repeat = await post(firstBody, signBody(SECRET, firstBody));
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual({ eventId: first.eventId, status: 'duplicate' });
    const marker = aPartnerEvent({ paymentId: first.paymentId });
    const markerBody = JSON.stringify(marker);
    expect((await post(markerBody, signBody(SECRET, markerBody))).status).toBe(200);
    await waitFor('the marker event on RabbitMQ', () =>
      published.find(
        (candidate) => (candidate.data as { eventId: string }).eventId === marker.eventId,
      ),
    );
    expect(
      published
        .filter((candidate) => (candidate.data as { eventId: string }).eventId === first.eventId)
        .map((candidate) => (candidate.data as { operationId: string }).operationId),
    ).toEqual([first.operationId]);
  });

  describe('rejects, stores nothing and publishes nothing for', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, (body: string) => string | undefined, string]> = [
      [
        'a tampered body',
        (body) => signBody(SECRET, body.replace('registration', 'capture')),
        MERCHANT,
      ],
      ['a wrong secret', (body) => signBody('not-the-merchant-secret', body), MERCHANT],
      ['an old timestamp', (body) => signBody(SECRET, body, now() - 400), MERCHANT],
      ['a timestamp from the future', (body) => signBody(SECRET, body, now() + 400), MERCHANT],
      ['a signature without t', (body) => signBody(SECRET, body).replace(/^t=\d+,/, ''), MERCHANT],
      ['a missing signature', () => undefined, MERCHANT],
      ['a garbled signature', () => 'garbage', MERCHANT],
      ['an unknown merchant', (body) => signBody(SECRET, body), 'merchant-nobody-configured'],
      ['a merchant id the database cannot hold', (body) => signBody(SECRET, body), 'merchant%00'],
    ];

    it.each(cases)('%s (401)', async (_name, sign, merchantId) => {
      const event = aPartnerEvent();
      const body = JSON.stringify(event);
      const response = await post(body, sign(body), merchantId);

      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ code: 'notification.signature_invalid' });
      expect(await storedEvents(event.eventId)).toBe(0);
    });

    it('an unknown merchant with the very answer a known one gets, whatever the header', async () => {
      const body = JSON.stringify(aPartnerEvent());
      const headers = [
        signBody('not-the-merchant-secret', body),
        signBody(SECRET, body, now() - 400),
        'garbage',
        't=1,v1=00',
        undefined,
      ];
      for (const header of headers) {
        const known = await post(body, header, MERCHANT);
        const unknown = await post(body, header, 'merchant-nobody-configured');
        const detailOf = async (response: Response) =>
          ((await response.json()) as { detail: string }).detail;
        expect([unknown.status, await detailOf(unknown)]).toEqual([
          known.status,
          await detailOf(known),
        ]);
      }
    });

    it('malformed JSON, even when signed (400)', async () => {
      const body = '{"eventId": "evt-broken",';
      const response = await post(body, signBody(SECRET, body));

      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'request.malformed_json' });
      expect(await storedEvents('evt-broken')).toBe(0);
    });

    it('an event with a missing member or an unknown type (400)', async () => {
      const partial: Partial<PartnerEvent> = aPartnerEvent({ type: 'refund_succeeded' as never });
      delete partial.occurredAt;
      const body = JSON.stringify(partial);
      const response = await post(body, signBody(SECRET, body));

      expect(response.status).toBe(400);
      const problem = (await response.json()) as { code: string; errors: Array<{ path: string }> };
      expect(problem.code).toBe('notification.invalid_event');
      expect(problem.errors.map((error) => error.path).sort()).toEqual(['occurredAt', 'type']);
      expect(await storedEvents(partial.eventId as string)).toBe(0);
    });

    it('a body that is not application/json (415)', async () => {
      const event = aPartnerEvent();
      const body = JSON.stringify(event);
      const response = await fetch(`${service.url}/notifications/merchants/${MERCHANT}/events`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'comanda-signature': signBody(SECRET, body) },
        body,
      });
      expect(response.status).toBe(415);
      expect(await storedEvents(event.eventId)).toBe(0);
    });

    it('a body over the size limit (413)', async () => {
      const body = JSON.stringify({ ...aPartnerEvent(), reason: 'x'.repeat(70 * 1024) });
      const response = await post(body, signBody(SECRET, body));
      expect(response.status).toBe(413);
    });
  });

  it('needs neither a bearer token nor X-Api-Version', async () => {
    const event = aPartnerEvent();
    const body = JSON.stringify(event);
    const response = await post(body, signBody(SECRET, body));
    expect(response.status).toBe(200);
  });

  it('answers 2xx for an event whose COMMIT went through though its answer was lost, and hands it on once', async () => {
    const event = aPartnerEvent({ type: 'registration_succeeded' });
    const body = JSON.stringify(event);
    proxy.loseCommitAnswer(event.eventId);

    const response = await post(body, signBody(SECRET, body));

    // A 500 would tell the partner "not stored": for a registration it would abort it (rule 4).
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ eventId: event.eventId, status: 'duplicate' });
    expect(await storedEvents(event.eventId)).toBe(1);
    const ofEvent = () =>
      published.filter(
        (candidate) =>
          (candidate.data as { eventId?: string } | undefined)?.eventId === event.eventId,
      );
    await waitFor('the event on RabbitMQ', () => ofEvent().length > 0);
    // A later event goes out after it: once seen, no second copy can be on its way.
    const later = aPartnerEvent();
    const laterBody = JSON.stringify(later);
    expect((await post(laterBody, signBody(SECRET, laterBody))).status).toBe(200);
    await waitFor('the later event on RabbitMQ', () =>
      published.some(
        (candidate) =>
          (candidate.data as { eventId?: string } | undefined)?.eventId === later.eventId,
      ),
    );
    expect(ofEvent()).toHaveLength(1);
  });

  // Last: the proxy stays cut.
  it('answers 500, never 2xx, when its database is down', async () => {
    const event = aPartnerEvent();
    const body = JSON.stringify(event);
    await proxy.stop();

    const response = await post(body, signBody(SECRET, body));

    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ status: 500 });
    expect(await storedEvents(event.eventId)).toBe(0);
  });
});
