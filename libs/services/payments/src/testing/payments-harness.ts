import { randomBytes, randomUUID } from 'node:crypto';
import {
  createCloudEvent,
  EventTypes,
  type CloudEvent,
  type EventPayloads,
  type EventType,
  type PartnerEventType,
} from '@comanda/contracts';
import { RabbitMqBus } from '@comanda/messaging';
import { UnitOfWork } from '@comanda/persistence';
import { startService, type RunningService } from '@comanda/runtime';
import {
  createTestBroker,
  createTestDatabase,
  disposePlatformBroker,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import type { OperationRequestBody } from '../domain/payment';
import { paymentsService } from '../payments.service-definition';
import { ConfigureMerchant } from '../usecases/configure-merchant/configure-merchant.usecase';
import { FakePartner } from './fake-partner';

export const TENANT = 'tenant-pay';
export const SECRET = 'partner-secret-0123456789';
/** The suite's COMANDA_SECRETS_KEY: merchants' secrets are sealed under it. */
export const SECRETS_KEY = randomBytes(32).toString('base64url');

/** Events the service published, as a test sees them on the bus. */
export type Observed = CloudEvent<EventType>;

/**
 * The payments service as it runs in a deployment, over a fresh database and its own
 * exchange on the real RabbitMQ, with a fake partner over real HTTP. The test plays orders
 * (checkout, placement) and the notification receiver (partner events) on the bus.
 */
export class PaymentsHarness {
  readonly observed: Observed[] = [];
  partner!: FakePartner;
  partnerUrl!: string;
  service!: RunningService;
  private db!: TestDatabase;
  private broker!: TestBroker;
  private bus!: RabbitMqBus;
  private env: Record<string, string> = {};

  static async start(label: string, env: Record<string, string>): Promise<PaymentsHarness> {
    const harness = new PaymentsHarness();
    await harness.boot(label, env);
    return harness;
  }

  private async boot(label: string, env: Record<string, string>): Promise<void> {
    this.db = await createTestDatabase(label);
    this.broker = await createTestBroker(label);
    this.bus = new RabbitMqBus({
      url: this.broker.url,
      exchange: this.broker.exchange,
      queuePrefix: this.broker.queuePrefix,
      reconnectDelayMs: 100,
    });
    await this.bus.subscribe({
      queue: 'observer.payments',
      eventTypes: [
        EventTypes.PaymentRegistered,
        EventTypes.PaymentAuthorized,
        EventTypes.PaymentCaptured,
        EventTypes.PaymentAnnulled,
        EventTypes.PaymentFailed,
        EventTypes.PaymentAnnulmentFailed,
        EventTypes.MerchantConfigured,
        EventTypes.PaymentOperationRequested,
      ],
      handler: async ({ event }) => {
        this.observed.push(event);
      },
    });
    this.partner = new FakePartner(SECRET, async (operation, type) => {
      await this.partnerEvent(operation, type);
    });
    this.partnerUrl = await this.partner.start();
    this.env = {
      LOG_LEVEL: 'warn',
      COMANDA_SECRETS_KEY: SECRETS_KEY,
      TIMER_POLL_MS: '50',
      // Deadlines armed before a restart wait this long after it (ADR 0060), not 30 s.
      TIMER_OUTAGE_GRACE_MS: '500',
      OUTBOX_POLL_MS: '50',
      PAYMENT_SEND_POLL_MS: '50',
      PAYMENT_SEND_RETRY_BASE_MS: '100',
      ...env,
    };
    this.service = await this.startService();
  }

  private startService(): Promise<RunningService> {
    return startService(paymentsService, {
      port: 0,
      host: '127.0.0.1',
      databaseUrl: this.db.url,
      bus: this.bus,
      env: this.env,
    });
  }

  /** Stops the service (what was in flight settles); `start` brings a new process up. */
  async stop(): Promise<void> {
    await this.service.close();
  }

  async start(): Promise<void> {
    this.service = await this.startService();
  }

  /** Stops the service and starts it again with these settings changed. */
  async restartWith(env: Record<string, string>): Promise<void> {
    await this.stop();
    this.env = { ...this.env, ...env };
    await this.start();
  }

  async configureMerchant(
    merchantId: string,
    partnerUrl = this.partnerUrl,
    secret: { signingSecret: string; gracePeriodSeconds?: number } = { signingSecret: SECRET },
  ): Promise<void> {
    const configure = this.service.app.get(ConfigureMerchant);
    await configure.checkPartnerUrl(partnerUrl);
    await this.service.app
      .get(UnitOfWork)
      .run((tx) =>
        configure.execute(tx, TENANT, merchantId, { name: merchantId, partnerUrl, ...secret }),
      );
  }

  /** Orders' `basket.checked_out` with a payment; returns the order id. */
  async checkout(merchantId: string, paymentMethod: string, value = 2590): Promise<string> {
    const orderId = `order-${randomUUID()}`;
    await this.publish(EventTypes.BasketCheckedOut, orderId, {
      orderId,
      basketId: `basket-${randomUUID()}`,
      storeId: 'store-1',
      total: { value, currency: 'EUR' },
      payment: { merchantId, paymentMethod },
    });
    return orderId;
  }

  /** Orders' `order.placed` after the POS took the order. */
  async orderPlaced(orderId: string, paymentId: string): Promise<void> {
    const now = new Date().toISOString();
    await this.publish(EventTypes.OrderPlaced, orderId, {
      orderId,
      orderName: 'A-1',
      datePlaced: now,
      estimatedReadyTime: now,
      orderRefs: {},
      paymentId,
    });
  }

  async publish<T extends EventType>(
    type: T,
    subject: string,
    data: EventPayloads[T],
  ): Promise<CloudEvent<T>> {
    const event = createCloudEvent('/comanda/test', { type, tenantId: TENANT, subject, data });
    await this.bus.publish(event);
    return event;
  }

  /** What the notification receiver publishes for a verified partner event. */
  partnerEvent(
    operation: OperationRequestBody,
    type: PartnerEventType,
    eventId: string = randomUUID(),
  ): Promise<CloudEvent<typeof EventTypes.PartnerEventReceived>> {
    return this.publish(EventTypes.PartnerEventReceived, operation.paymentId, {
      merchantId: operation.merchantId,
      eventId,
      type,
      paymentId: operation.paymentId,
      operationId: operation.operationId,
      occurredAt: new Date().toISOString(),
    });
  }

  eventsOf(orderId: string): Observed[] {
    return this.observed.filter(
      (event) => (event.data as { orderId?: string }).orderId === orderId,
    );
  }

  /** The payment's state events, without the operation requests. */
  typesOf(orderId: string): string[] {
    return this.eventsOf(orderId)
      .map((event) => event.type)
      .filter((type) => type !== EventTypes.PaymentOperationRequested);
  }

  paymentIdOf(orderId: string): Promise<string | undefined> {
    return this.query<{ id: string }>('SELECT id FROM payments.payments WHERE order_id = $1', [
      orderId,
    ]).then((rows) => rows[0]?.id);
  }

  query<R>(sql: string, parameters: unknown[] = []): Promise<R[]> {
    return this.service.app.get(UnitOfWork).run((tx) => tx.query(sql, parameters) as Promise<R[]>);
  }

  async close(): Promise<void> {
    await this.service?.close();
    await this.partner?.stop();
    await this.bus?.close();
    await this.deleteBrokerObjects();
    await this.db?.drop();
  }

  /** The suite's queues and exchange on the shared broker. */
  private async deleteBrokerObjects(): Promise<void> {
    await disposePlatformBroker(this.broker, [`${this.broker.queuePrefix}observer.payments`]);
  }
}
