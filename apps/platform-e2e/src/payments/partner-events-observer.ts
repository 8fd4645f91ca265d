import {
  createCloudEvent,
  EventTypes,
  merchantAnnouncementLabel,
  type CloudEvent,
  type PartnerEventReceived,
} from '@comanda/contracts';
import { MESSAGE_BUS, type MessageBus } from '@comanda/messaging';
import { signBody } from '@comanda/outbound';
import type { RunningPlatform } from '@comanda/platform';
import { SecretBox } from '@comanda/security';
import { waitFor } from '@comanda/testing';

/**
 * Stands in for payments on the platform's own bus (the in-process bus of `npm start`):
 * announces merchants (`payment.merchant_configured`, as payments does on every merchant
 * change) and collects the `payment.partner_event_received` events notifications hands over.
 * The platform's bus rather than a shared RabbitMQ: consumer queue names carry no suite
 * prefix there, so parallel suites would take each other's messages.
 */
export class PaymentsStandIn {
  readonly received: Array<CloudEvent<typeof EventTypes.PartnerEventReceived>> = [];

  private constructor(
    private readonly bus: MessageBus,
    /** The key payments and notifications share: announcements carry the secret sealed. */
    private readonly secrets: SecretBox,
  ) {}

  static async start(platform: RunningPlatform, queue: string): Promise<PaymentsStandIn> {
    const notifications = platform.services.get('notifications');
    if (!notifications) throw new Error('the platform runs no notifications service');
    const standIn = new PaymentsStandIn(
      notifications.app.get<MessageBus>(MESSAGE_BUS),
      notifications.app.get(SecretBox),
    );
    await standIn.bus.subscribe({
      queue,
      eventTypes: [EventTypes.PartnerEventReceived],
      retry: { delaysMs: [] },
      handler: async (message) => {
        standIn.received.push(message.event as CloudEvent<typeof EventTypes.PartnerEventReceived>);
      },
    });
    return standIn;
  }

  configureMerchant(tenantId: string, merchantId: string, signingSecret: string): Promise<void> {
    return this.bus.publish(
      createCloudEvent('/comanda/payments', {
        type: EventTypes.MerchantConfigured,
        tenantId,
        subject: merchantId,
        data: {
          merchantId,
          signingSecretSealed: this.secrets.seal(
            signingSecret,
            merchantAnnouncementLabel(merchantId),
          ),
        },
      }),
    );
  }

  eventsWith(
    match: Partial<PartnerEventReceived>,
  ): Array<CloudEvent<typeof EventTypes.PartnerEventReceived>> {
    return this.received.filter((event) =>
      Object.entries(match).every(
        ([key, value]) => (event.data as unknown as Record<string, unknown>)[key] === value,
      ),
    );
  }
}

/**
 * Waits until notifications verifies events of the merchant (it learns the secret from the
 * bus): a signed probe event through the gateway is answered 200.
 */
export function merchantKnownAtNotifications(
  baseUrl: string,
  merchantId: string,
  secret: string,
): Promise<true> {
  return waitFor(`the secret of ${merchantId} at notifications`, async () => {
    const body = JSON.stringify({
      eventId: `probe-${Date.now()}-${Math.random()}`,
      type: 'registration_succeeded',
      paymentId: 'probe',
      operationId: 'probe',
      occurredAt: new Date().toISOString(),
    });
    const response = await fetch(`${baseUrl}/notifications/merchants/${merchantId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'comanda-signature': signBody(secret, body) },
      body,
    });
    return response.status === 200 || undefined;
  });
}
