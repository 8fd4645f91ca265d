import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { signBody } from '@comanda/outbound';
import { PERMISSION_NAMES } from '@comanda/security';
import { waitFor } from '@comanda/testing';
import { expectPlatformServing, expectProblem, V0 } from './support/clients';
import { internalService, startDeployment, type Deployment } from './support/deployment';
import { tenantClientToken } from './support/tenant-client';

const SECRET = 'security-suite-merchant-secret-0123';

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** A partner event as the contract defines it, with a fresh id. */
function partnerEvent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventId: `evt-${randomUUID()}`,
    type: 'authorization_succeeded',
    paymentId: randomUUID(),
    operationId: `op-${randomUUID()}`,
    occurredAt: new Date().toISOString(),
    ...extra,
  };
}

/**
 * The services added in round 2 (orders, payments, notifications) under the classes of the
 * security issue that need their own data to reach: races on their creates, bodies before
 * authentication, and the partner events receiver. The classes every route shares
 * (prototype keys, JSON depth, Fastify's own errors, 405, identifier lengths) run over every
 * operation of every service in prototype-keys and input-and-errors.
 */
describe('orders, payments and notifications under the classes of the security issue', () => {
  let deployment: Deployment;
  let token: string;
  /** A client of another tenant with the same permissions. */
  let otherToken: string;
  const merchantId = `merchant-${randomUUID().slice(0, 8)}`;

  /** The public port, and distributed, the service's own port (the internal network). */
  function portsOf(service: string): Array<{ name: string; url: string }> {
    const ports = [{ name: 'public port', url: deployment.baseUrl }];
    if (deployment.internal.length > 0) {
      ports.push({ name: `${service}'s own port`, url: internalService(deployment, service).url });
    }
    return ports;
  }

  async function call(
    url: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    as = token,
  ): Promise<{ status: number; type: string; json: Record<string, unknown> }> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...V0,
        authorization: `Bearer ${as}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      json: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  }

  /** As a partner posts an event: no token, no X-Api-Version, the exact bytes signed. */
  function postEvent(url: string, body: string, signature?: string, merchant = merchantId) {
    return fetch(`${url}/notifications/merchants/${merchant}/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { 'comanda-signature': signature }),
      },
      body,
    });
  }

  async function storedEvents(eventIds: string[]): Promise<number> {
    const client = new Client({ connectionString: deployment.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notifications.partner_events WHERE event_id = ANY($1)',
        [eventIds],
      );
      return rows[0].n;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    deployment = await startDeployment('round2');
    const permissions = PERMISSION_NAMES.filter(
      (permission) => permission !== 'platform:admin' && permission !== 'personal-data:read',
    );
    ({ token } = await tenantClientToken(deployment, permissions, 'round2'));
    ({ token: otherToken } = await tenantClientToken(deployment, permissions, 'other'));
    const merchant = await call(deployment.baseUrl, 'PUT', `/payments/merchants/${merchantId}`, {
      name: 'Security suite merchant',
      partnerUrl: 'http://127.0.0.1:9/payments',
      signingSecret: SECRET,
    });
    if (merchant.status !== 201) throw new Error(`merchant: ${merchant.status}`);
    // Payments announces the merchant; the receiver learns its secret from the bus.
    await waitFor(
      'the receiver to know the merchant',
      async () => {
        const body = JSON.stringify(partnerEvent());
        return (await postEvent(deployment.baseUrl, body, signBody(SECRET, body))).status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });
  afterAll(() => deployment?.close());

  describe('concurrent creates answer 409 or the one result, never 500', () => {
    const merchantInput = (signingSecret: string) => ({
      name: 'Race',
      partnerUrl: 'http://127.0.0.1:9/payments',
      signingSecret,
    });

    it('answers two concurrent PUTs of one new merchant with 201 and 200, on every port', async () => {
      for (const { name, url } of portsOf('payments')) {
        for (let round = 0; round < 3; round++) {
          const id = `race-${randomUUID().slice(0, 8)}`;
          const answers = await Promise.all(
            [1, 2].map(() => call(url, 'PUT', `/payments/merchants/${id}`, merchantInput(SECRET))),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          expect({ name, statuses }).toEqual({ name, statuses: [200, 201] });
        }
      }
      await expectPlatformServing(deployment);
    });

    it('gives a merchant id two tenants create at once to one of them; the other gets 409 and no say over its events', async () => {
      for (const { name, url } of portsOf('payments')) {
        const id = `race-${randomUUID().slice(0, 8)}`;
        const secrets = [`${SECRET}-mine`, `${SECRET}-theirs`];
        const answers = await Promise.all(
          [token, otherToken].map((as, index) =>
            call(url, 'PUT', `/payments/merchants/${id}`, merchantInput(secrets[index]), {}, as),
          ),
        );
        const statuses = answers.map((answer) => answer.status);
        expect({ name, statuses: [...statuses].sort() }).toEqual({ name, statuses: [201, 409] });
        const conflict = answers.find((answer) => answer.status === 409);
        expect(conflict?.json.code).toBe('merchant.id_taken');
        // The receiver verifies the merchant's events with the owner's secret only.
        const owner = secrets[statuses.indexOf(201)];
        const loser = secrets[statuses.indexOf(409)];
        const event = JSON.stringify(partnerEvent());
        await waitFor(
          "the receiver to know the owner's secret",
          async () =>
            (await postEvent(deployment.baseUrl, event, signBody(owner, event), id)).status === 200,
          { timeoutMs: 30_000, intervalMs: 250 },
        );
        const forged = JSON.stringify(partnerEvent());
        await expectProblem(
          await postEvent(deployment.baseUrl, forged, signBody(loser, forged), id),
          401,
        );
      }
      await expectPlatformServing(deployment);
    });

    it('answers two concurrent PUTs of one new store with one store, never 500, on every port', async () => {
      for (const { name, url } of portsOf('orders')) {
        const id = `store-${randomUUID().slice(0, 8)}`;
        const answers = await Promise.all(
          [1, 2].map(() =>
            call(url, 'PUT', `/stores/${id}`, {
              name: 'Race',
              currency: 'EUR',
              mappingDetails: {},
            }),
          ),
        );
        const statuses = answers.map((answer) => answer.status).sort();
        expect({ name, statuses }).toEqual({
          name,
          statuses: statuses[1] === 409 ? [200, 409] : [200, 200],
        });
      }
      await expectPlatformServing(deployment);
    });

    it('answers two concurrent checkouts with one Idempotency-Key with one order, never 500, on every port', async () => {
      for (const { name, url } of portsOf('orders')) {
        const storeId = `store-${randomUUID().slice(0, 8)}`;
        expect(
          (
            await call(url, 'PUT', `/stores/${storeId}`, {
              name: 'S',
              currency: 'EUR',
              mappingDetails: {},
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await call(url, 'PUT', `/stores/${storeId}/menu`, {
              items: [
                { id: 'pizza', type: 'menuItem', title: 'Pizza', price: 900, mappingDetails: {} },
              ],
            })
          ).status,
        ).toBe(200);
        for (const idempotencyKey of [randomUUID(), undefined]) {
          const basket = await call(url, 'POST', '/baskets', {
            storeId,
            fulfillment: 'pickup',
            guest: { name: 'Ada', email: 'ada@example.com', phone: '+41 44 000 00 00' },
          });
          expect(basket.status).toBe(201);
          const basketId = basket.json.id as string;
          expect(
            (
              await call(url, 'POST', `/baskets/${basketId}/items`, {
                menuItemId: 'pizza',
                quantity: 1,
              })
            ).status,
          ).toBe(201);
          const answers = await Promise.all(
            [1, 2].map(() =>
              call(
                url,
                'POST',
                `/baskets/${basketId}/checkout`,
                {},
                idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
              ),
            ),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          const what = { name, idempotencyKey: idempotencyKey !== undefined };
          if (idempotencyKey) {
            // The second waits for the first and replays its answer.
            expect({ ...what, statuses }).toEqual({ ...what, statuses: [202, 202] });
            expect(answers[0].json.orderId).toBe(answers[1].json.orderId);
          } else {
            // Without a key the second finds the basket checked out.
            expect({ ...what, statuses }).toEqual({ ...what, statuses: [202, 409] });
            const conflict = answers.find((answer) => answer.status === 409);
            expect(conflict?.type).toMatch(/^application\/problem\+json/);
          }
        }
      }
      await expectPlatformServing(deployment);
    });
  });

  describe('bodies before authentication', () => {
    it.each([
      ['POST', '/baskets', 'orders'],
      ['PUT', '/payments/merchants/m-1', 'payments'],
    ])(
      'refuses 100 unauthenticated large bodies to %s %s from their headers, on every port',
      async (method, path, service) => {
        for (const { name, url } of portsOf(service)) {
          const process =
            name === 'public port' ? deployment.front : internalService(deployment, service);
          const before = rssKiB(process.pid);
          for (const size of [900_000, 1_950_000]) {
            // Members the input guard lets through: no 400 answers before the token is looked at.
            const body = JSON.stringify(
              Object.fromEntries(
                Array.from({ length: size / 2000 }, (_v, i) => [`m${i}`, 'x'.repeat(2000)]),
              ),
            );
            for (let batch = 0; batch < 5; batch++) {
              const statuses = await Promise.all(
                Array.from({ length: 20 }, async () => {
                  const response = await fetch(`${url}${path}`, {
                    method,
                    headers: { ...V0, 'content-type': 'application/json' },
                    body,
                  }).catch(() => undefined);
                  await response?.arrayBuffer();
                  // A socket closed before the whole body went is a refusal too.
                  return response?.status ?? 0;
                }),
              );
              // Refused from the headers on every port, whatever the body's size.
              const unexpected = statuses.filter((status) => status !== 401 && status !== 0);
              expect({ name, size, unexpected }).toEqual({ name, size, unexpected: [] });
            }
          }
          expect(rssKiB(process.pid) - before).toBeLessThan(200 * 1024);
        }
        await expectPlatformServing(deployment);
      },
    );
  });

  describe('the partner events receiver', () => {
    it('stores a signed event once, checked over its exact bytes, on every port', async () => {
      for (const { name, url } of portsOf('notifications')) {
        const event = partnerEvent();
        const body = JSON.stringify(event);
        const signature = signBody(SECRET, body);
        // The same event in other bytes (spaces, member order) does not match the signature.
        for (const other of [
          JSON.stringify(event, null, 1),
          JSON.stringify(Object.fromEntries(Object.entries(event).reverse())),
          `${body} `,
        ]) {
          await expectProblem(await postEvent(url, other, signature), 401);
        }
        const first = await postEvent(url, body, signature);
        expect({ name, status: first.status }).toEqual({ name, status: 200 });
        expect(await first.json()).toEqual({ eventId: event.eventId, status: 'stored' });
        const again = await postEvent(url, body, signature);
        expect(await again.json()).toEqual({ eventId: event.eventId, status: 'duplicate' });
        expect(await storedEvents([event.eventId as string])).toBe(1);
      }
      await expectPlatformServing(deployment);
    });

    it('refuses unsigned, badly signed, stale and unknown-merchant events with 401 and stores none', async () => {
      for (const { name, url } of portsOf('notifications')) {
        const refused: string[] = [];
        const attempts: Array<[string, (body: string) => string | undefined, string?]> = [
          ['unsigned', () => undefined],
          ['an empty signature', () => ''],
          ['another secret', (body) => signBody('not-the-merchant-secret-000', body)],
          ['a stale timestamp', (body) => signBody(SECRET, body, Date.now() / 1000 - 3600)],
          ['a malformed header', () => 't=1,v1=zz'],
          ['an unknown merchant', (body) => signBody(SECRET, body), `nobody-${randomUUID()}`],
          ['a prototype key as merchant', (body) => signBody(SECRET, body), '__proto__'],
        ];
        for (const [what, sign, merchant] of attempts) {
          const event = partnerEvent();
          const body = JSON.stringify(event);
          const response = await postEvent(url, body, sign(body), merchant);
          const problem = await expectProblem(response, 401);
          expect({ name, what, code: problem.code }).toEqual({
            name,
            what,
            code: 'notification.signature_invalid',
          });
          refused.push(event.eventId as string);
        }
        expect(await storedEvents(refused)).toBe(0);
      }
      await expectPlatformServing(deployment);
    });

    it('refuses an event past 64 KiB with 413 problem+json, signed or not, and stores nothing', async () => {
      for (const { name, url } of portsOf('notifications')) {
        const event = partnerEvent({ padding: 'x'.repeat(70 * 1024) });
        const body = JSON.stringify(event);
        for (const signature of [signBody(SECRET, body), undefined]) {
          const response = await postEvent(url, body, signature);
          const problem = await expectProblem(response, 413);
          expect({ name, code: problem.code }).toEqual({ name, code: 'request.too_large' });
        }
        expect(await storedEvents([event.eventId as string])).toBe(0);
      }
      await expectPlatformServing(deployment);
    });

    it('answers signed events nested 10,000 deep or with prototype keys with 400 and stores nothing', async () => {
      for (const { url } of portsOf('notifications')) {
        const eventIds: string[] = [];
        const bodies = [
          (id: string) =>
            `{"eventId":"${id}","type":"authorization_succeeded","paymentId":"${randomUUID()}","operationId":"op","occurredAt":"${new Date().toISOString()}","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
          (id: string) =>
            `{"eventId":"${id}","type":"authorization_succeeded","paymentId":"${randomUUID()}","operationId":"op","occurredAt":"${new Date().toISOString()}","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`,
        ];
        for (const bodyOf of bodies) {
          const id = `evt-${randomUUID()}`;
          eventIds.push(id);
          const body = bodyOf(id);
          await expectProblem(await postEvent(url, body, signBody(SECRET, body)), 400);
        }
        expect(await storedEvents(eventIds)).toBe(0);
      }
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      await expectPlatformServing(deployment);
    });

    it('stores one event posted ten times at once: once stored, else duplicate, never 500', async () => {
      for (const { name, url } of portsOf('notifications')) {
        const event = partnerEvent();
        const body = JSON.stringify(event);
        const signature = signBody(SECRET, body);
        const answers = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const response = await postEvent(url, body, signature);
            const receipt = (await response.json()) as { status?: string };
            return `${response.status} ${receipt.status}`;
          }),
        );
        expect({ name, answers: answers.sort() }).toEqual({
          name,
          answers: ['200 duplicate', ...Array(8).fill('200 duplicate'), '200 stored'],
        });
        expect(await storedEvents([event.eventId as string])).toBe(1);
      }
      await expectPlatformServing(deployment);
    });
  });
});
