import { randomUUID } from 'node:crypto';
import { PARTNER_EVENT_TYPES, type PaymentOperationType } from '@comanda/contracts';
import { signBody } from '@comanda/outbound';
import { KitReceiver, type ReceivedEvent } from './kit-receiver';

export interface PartnerCheckOptions {
  /** The partner's `/payments` address. */
  url: string;
  /** The merchant's signing secret, as configured at the partner. */
  secret: string;
  merchantId: string;
  /** Where the kit's receiver listens (0: any free port). */
  receiverHost: string;
  receiverPort: number;
  /** The receiver as the partner reaches it, when not `http://<host>:<port>` (a tunnel). */
  receiverPublicUrl?: string;
  /** `paymentMethod` of every operation (a partner's "always succeeds" test method). */
  paymentMethod: string;
  currency: string;
  /** How long to wait for each expected event. */
  eventTimeoutMs: number;
  /** How long "no event" is watched for, after the request that must have none. */
  quietMs: number;
}

export interface CheckRow {
  check: string;
  passed: boolean;
  sent: string;
  saw: string;
}

export interface PartnerCheckReport {
  /** The merchant's notifications_url the partner must post to (`<this>/events`). */
  notificationsUrl: string;
  rows: CheckRow[];
  passed: boolean;
}

interface Sent {
  operationId: string;
  paymentId: string;
  status?: number;
  error?: string;
  description: string;
}

/**
 * The spec's payment contract, run against any partner: 202 on valid operations, 400 and no
 * event on malformed JSON and on a missing required field, signed events reaching the kit's
 * own receiver, the full lifecycle, and capture on an annulled transaction ending in
 * capture_failed. Every row says what was sent and what was seen.
 */
export async function runPartnerCheck(
  options: PartnerCheckOptions,
  progress: (line: string) => void = () => undefined,
): Promise<PartnerCheckReport> {
  const receiver = await KitReceiver.start(
    options.secret,
    options.receiverHost,
    options.receiverPort,
  );
  const notificationsUrl = `${(options.receiverPublicUrl ?? `http://${hostForUrl(options.receiverHost)}:${receiver.port}`).replace(/\/+$/, '')}/notifications/merchants/${encodeURIComponent(options.merchantId)}`;
  progress(`receiver for merchant ${options.merchantId}: ${notificationsUrl}/events`);
  try {
    const kit = new Kit(options, receiver);
    const rows = await kit.run(progress);
    return { notificationsUrl, rows, passed: rows.every((row) => row.passed) };
  } finally {
    await receiver.close();
  }
}

class Kit {
  private readonly runId = randomUUID().slice(0, 8);
  private sequence = 0;

  constructor(
    private readonly options: PartnerCheckOptions,
    private readonly receiver: KitReceiver,
  ) {}

  async run(progress: (line: string) => void): Promise<CheckRow[]> {
    const rows: CheckRow[] = [];
    const add = (row: CheckRow) => {
      rows.push(row);
      progress(`${row.passed ? 'pass' : 'FAIL'}  ${row.check}`);
    };

    // Rule 7 first; their silence is checked at the end, after at least quietMs.
    const silentSince = Date.now();
    const malformed = await this.sendRaw(
      this.newIds(),
      (ids) =>
        `{"operationId":"${ids.operationId}","operationType":"registration","paymentId":"${ids.paymentId}",`,
      'malformed JSON (registration cut off mid-body)',
    );
    const noAmount = await this.send('registration', this.newIds(), { omit: 'amount' });
    const noType = await this.send('registration', this.newIds(), { omit: 'operationType' });

    // Rule 1: the full lifecycle, each operation after the previous success event.
    const lifecycle = this.newIds();
    for (const [operation, expected] of [
      ['registration', 'registration_succeeded'],
      ['authorization', 'authorization_succeeded'],
      ['capture', 'capture_succeeded'],
    ] as const) {
      const row = await this.operationRow(
        `full lifecycle: ${operation} → 202, ${expected}`,
        operation,
        lifecycle.paymentId,
        expected,
      );
      add(row);
      if (!row.passed) break;
    }

    // Idempotency-Key: the same operation sent twice runs once.
    const retried = this.newIds();
    const first = await this.send('registration', retried);
    const second = await this.send('registration', retried);

    // Rule 5: capture on an annulled transaction → 202, then capture_failed.
    const annulled = this.newIds();
    const steps: CheckRow[] = [];
    for (const [operation, expected] of [
      ['registration', 'registration_succeeded'],
      ['annulment', 'annulment_succeeded'],
      ['capture', 'capture_failed'],
    ] as const) {
      const row = await this.operationRow(operation, operation, annulled.paymentId, expected);
      steps.push(row);
      if (!row.passed) break;
    }
    add({
      check: 'capture on an annulled transaction → 202, capture_failed',
      passed: steps.length === 3 && steps.every((row) => row.passed),
      sent: steps.map((row) => row.sent).join('; '),
      saw: steps.map((row) => row.saw).join('; '),
    });

    await this.quietUntil(silentSince + this.options.quietMs);
    add(this.rejectedRow('malformed JSON → 400, no event', malformed));
    add(this.rejectedRow('missing required field (amount) → 400, no event', noAmount));
    add(this.rejectedRow('missing required field (operationType) → 400, no event', noType));

    // Its one event first, then a while for a second one that must not come.
    await this.eventFor(retried.operationId);
    await this.quietUntil(Date.now() + Math.min(this.options.quietMs, 1_000));
    const retriedEvents = this.eventsFor(retried.paymentId);
    add({
      check: 'same Idempotency-Key twice → both 202, one operation, one event',
      passed: first.status === 202 && second.status === 202 && retriedEvents.length === 1,
      sent: `registration ${retried.operationId} twice with Idempotency-Key ${retried.operationId}`,
      saw: `${describeStatus(first)}, ${describeStatus(second)}; ${retriedEvents.length} event(s): ${describeEvents(retriedEvents)}`,
    });

    const all = this.ours();
    add(
      everyEventRow(
        'every event signed with the merchant secret (Comanda-Signature)',
        all,
        (event) => (event.signature.valid ? undefined : event.signature.reason),
        'all signatures valid (t within 300 s, v1 over "<t>." + raw body)',
      ),
    );
    add(
      everyEventRow(
        'every event body {eventId, type, paymentId, operationId, occurredAt, reason?}',
        all,
        contractProblem,
        'all bodies follow the contract',
      ),
    );
    add({
      check: 'events posted to {notifications_url}/events',
      passed: all.length > 0 && all.every((event) => event.path === this.eventsPath()),
      sent: `expected path ${this.eventsPath()}`,
      saw: [...new Set(all.map((event) => event.path))].join(', ') || 'no events at all',
    });
    return rows;
  }

  private async operationRow(
    check: string,
    operation: PaymentOperationType,
    paymentId: string,
    expected: (typeof PARTNER_EVENT_TYPES)[number],
  ): Promise<CheckRow> {
    const ids = { paymentId, operationId: this.newIds().operationId };
    const sent = await this.send(operation, ids);
    if (sent.status !== 202) {
      return { check, passed: false, sent: sent.description, saw: describeStatus(sent) };
    }
    const event = await this.eventFor(ids.operationId);
    const type = event?.body?.['type'];
    return {
      check,
      passed: type === expected,
      sent: sent.description,
      saw: `202; ${event ? `${String(type)}${event.signature.valid ? '' : ' (bad signature)'}` : `no event within ${this.options.eventTimeoutMs} ms`}`,
    };
  }

  private rejectedRow(check: string, sent: Sent): CheckRow {
    const events = this.eventsFor(sent.paymentId);
    return {
      check,
      passed: sent.status === 400 && events.length === 0,
      sent: sent.description,
      saw: `${describeStatus(sent)}; ${events.length === 0 ? 'no event' : `${events.length} event(s): ${describeEvents(events)}`}`,
    };
  }

  private newIds(): { paymentId: string; operationId: string } {
    this.sequence += 1;
    return {
      paymentId: `kit-${this.runId}-pay-${this.sequence}`,
      operationId: `kit-${this.runId}-op-${this.sequence}`,
    };
  }

  private send(
    operationType: PaymentOperationType,
    ids: { paymentId: string; operationId: string },
    options: { omit?: 'amount' | 'operationType' } = {},
  ): Promise<Sent> {
    const body: Record<string, unknown> = {
      operationId: ids.operationId,
      operationType,
      paymentId: ids.paymentId,
      orderId: `kit-${this.runId}-order`,
      merchantId: this.options.merchantId,
      amount: { value: 1250, currency: this.options.currency },
      paymentMethod: this.options.paymentMethod,
    };
    if (options.omit) delete body[options.omit];
    const what = options.omit ? `${operationType} without ${options.omit}` : operationType;
    return this.sendRaw(ids, () => JSON.stringify(body), `${what} ${ids.operationId}`);
  }

  private async sendRaw(
    ids: { paymentId: string; operationId: string },
    bodyOf: (ids: { paymentId: string; operationId: string }) => string,
    description: string,
  ): Promise<Sent> {
    const body = bodyOf(ids);
    const sent: Sent = { ...ids, description: `POST ${description}` };
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': ids.operationId,
          'comanda-signature': signBody(this.options.secret, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      sent.status = response.status;
      await response.body?.cancel();
    } catch (error) {
      sent.error = error instanceof Error ? error.message : String(error);
    }
    return sent;
  }

  private eventsPath(): string {
    const base = this.options.receiverPublicUrl
      ? new URL(this.options.receiverPublicUrl).pathname.replace(/\/+$/, '')
      : '';
    return `${base}/notifications/merchants/${encodeURIComponent(this.options.merchantId)}/events`;
  }

  /** Events of this run (the receiver may see others, from earlier runs). */
  private ours(): ReceivedEvent[] {
    return this.receiver.events.filter((event) => {
      const raw = event.rawBody;
      return raw.includes(`kit-${this.runId}-`);
    });
  }

  private eventsFor(paymentId: string): ReceivedEvent[] {
    return this.ours().filter(
      (event) =>
        event.body?.['paymentId'] === paymentId || event.rawBody.includes(`"${paymentId}"`),
    );
  }

  private async eventFor(operationId: string): Promise<ReceivedEvent | undefined> {
    const deadline = Date.now() + this.options.eventTimeoutMs;
    for (;;) {
      const event = this.ours().find(
        (candidate) => candidate.body?.['operationId'] === operationId,
      );
      if (event || Date.now() >= deadline) return event;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Absence of an event can only be watched for a while: until `until`. */
  private async quietUntil(until: number): Promise<void> {
    const wait = until - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A row that holds when at least one event came and none has a problem. */
function everyEventRow(
  check: string,
  events: ReceivedEvent[],
  problemOf: (event: ReceivedEvent) => string | undefined,
  allGood: string,
): CheckRow {
  const problems = events.map(problemOf).filter((problem) => problem !== undefined);
  return {
    check,
    passed: events.length > 0 && problems.length === 0,
    sent: `${events.length} event(s) received and checked`,
    saw:
      events.length === 0
        ? 'no events at all'
        : problems.length === 0
          ? allGood
          : `${problems.length} bad: ${problems.slice(0, 3).join('; ')}`,
  };
}

function contractProblem(event: ReceivedEvent): string | undefined {
  const body = event.body;
  if (!body) return 'not a JSON object';
  for (const name of ['eventId', 'paymentId', 'operationId', 'occurredAt'] as const) {
    if (typeof body[name] !== 'string' || body[name] === '') return `${name} missing`;
  }
  if (!(PARTNER_EVENT_TYPES as readonly unknown[]).includes(body['type'])) {
    return `type ${JSON.stringify(body['type'])} unknown`;
  }
  if (Number.isNaN(Date.parse(body['occurredAt'] as string))) return 'occurredAt not a date';
  if (body['reason'] !== undefined && typeof body['reason'] !== 'string')
    return 'reason not a string';
  return undefined;
}

function describeStatus(sent: Sent): string {
  return sent.status !== undefined ? String(sent.status) : `no answer (${sent.error ?? 'unknown'})`;
}

function describeEvents(events: ReceivedEvent[]): string {
  return events.map((event) => String(event.body?.['type'] ?? 'unparseable')).join(', ');
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
