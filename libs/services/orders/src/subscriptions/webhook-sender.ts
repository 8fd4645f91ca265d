import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  OutboundHttp,
  outboundPolicyFor,
  signBody,
  UnsafeUrlError,
  type OutboundPolicy,
} from '@comanda/outbound';
import { SubscriptionUrlRefusedError } from './subscription.errors';
import { WebhooksConfig } from './webhooks.config';

export const CLOUDEVENTS_JSON = 'application/cloudevents+json; charset=utf-8';
export const DELIVERY_ID_HEADER = 'Comanda-Delivery-Id';
export const EVENT_ID_HEADER = 'Comanda-Event-Id';
export const EVENT_TYPE_HEADER = 'Comanda-Event-Type';
export const SIGNATURE_HEADER_NAME = 'Comanda-Signature';

export interface WebhookPost {
  url: string;
  secret: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** The CloudEvent, structured mode: the exact bytes that are signed. */
  body: string;
  /** Aborts the post (the service is stopping). */
  signal?: AbortSignal;
}

export type WebhookPostResult =
  | { ok: true; statusCode: number; durationMs: number }
  | { ok: false; statusCode?: number; error: string; durationMs: number };

/**
 * Sends deliveries through `OutboundHttp`: the deployment's policy is checked on the URL and
 * on every address a connection resolves to, redirects are never followed (a 3xx is a
 * failed attempt), and an attempt is bounded by `WEBHOOK_TIMEOUT_MS`.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly http: OutboundHttp;
  private readonly policy: OutboundPolicy;

  constructor(private readonly config: WebhooksConfig) {
    this.policy = outboundPolicyFor(config.COMANDA_ENVIRONMENT);
    this.http = new OutboundHttp(this.policy, {
      maxResponseBytes: 4 * 1024,
      connectionsPerOrigin: config.WEBHOOK_SEND_CONCURRENCY,
    });
  }

  /** At save: the URL's form and what its host resolves to now. */
  async checkUrl(url: string): Promise<void> {
    try {
      await this.http.check(url);
    } catch (error) {
      if (error instanceof UnsafeUrlError)
        throw new SubscriptionUrlRefusedError(error.code, error.message);
      throw error;
    }
  }

  async post(delivery: WebhookPost): Promise<WebhookPostResult> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    try {
      const response = await this.http.post(delivery.url, {
        body: delivery.body,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
        signal: delivery.signal,
        headers: {
          'content-type': CLOUDEVENTS_JSON,
          'user-agent': 'Comanda-Webhooks/1',
          [SIGNATURE_HEADER_NAME]: signBody(delivery.secret, delivery.body),
          [DELIVERY_ID_HEADER]: delivery.deliveryId,
          [EVENT_ID_HEADER]: delivery.eventId,
          [EVENT_TYPE_HEADER]: delivery.eventType,
        },
      });
      if (response.status >= 200 && response.status < 300) {
        return { ok: true, statusCode: response.status, durationMs: elapsed() };
      }
      return {
        ok: false,
        statusCode: response.status,
        error:
          response.status >= 300 && response.status < 400
            ? `answered ${response.status}; redirects are not followed`
            : `answered ${response.status}`,
        durationMs: elapsed(),
      };
    } catch (error) {
      return { ok: false, error: describeFailure(error), durationMs: elapsed() };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}

function describeFailure(error: unknown): string {
  // undici rejects with the abort reason: a DOMException named TimeoutError.
  const { name, code, message, cause } = (error ?? {}) as {
    name?: string;
    code?: string;
    message?: string;
    cause?: unknown;
  };
  if (error instanceof UnsafeUrlError) return `refused: ${error.message}`;
  if (cause instanceof UnsafeUrlError) return `refused: ${cause.message}`;
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return 'no answer within the timeout';
  }
  return `${code ?? name ?? 'Error'}: ${message ?? 'unknown failure'}`.slice(0, 300);
}
