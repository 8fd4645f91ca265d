import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, signBody } from '@comanda/outbound';
import type { PartnerEventType } from '@comanda/contracts';
import type {
  LedgerEvent,
  LedgerOperation,
  SandboxTransaction,
} from '../domain/sandbox-transaction';
import {
  deliveryRetryDelays,
  notificationsUrlTemplate,
  PartnerSandboxConfig,
} from '../partner-sandbox.config';
import { SandboxLedger } from '../persistence/sandbox-ledger';

/** Where the sandbox itself plays a receiver that answers 500 (token `sandbox_receiver_500`). */
export const FAILING_RECEIVER_PATH = '/sandbox/failing-receiver';

/**
 * Posts completion events, signed, to the merchant's `{notifications_url}/events` after the
 * event delay. A 500 (or no answer) is a delivery failure: for `registration_succeeded` the
 * sandbox aborts the registration and sends nothing more (rule 4); other events are posted
 * again after each retry delay. A 4xx is the receiver refusing the event: not retried.
 * The timers are in memory: this is a sandbox.
 */
@Injectable()
export class EventDelivery implements OnModuleDestroy {
  private readonly logger = new Logger(EventDelivery.name);
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly retryDelays: number[];
  private readonly urlTemplate: string;

  constructor(
    private readonly config: PartnerSandboxConfig,
    private readonly ledger: SandboxLedger,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.retryDelays = deliveryRetryDelays(config);
    this.urlTemplate = notificationsUrlTemplate(config);
  }

  schedule(
    transaction: SandboxTransaction,
    operation: LedgerOperation,
    event: { type: PartnerEventType; reason?: string },
    delayMs: number,
    failingReceiver: boolean,
  ): void {
    const ledgerEvent: LedgerEvent = {
      eventId: randomUUID(),
      type: event.type,
      occurredAt: '',
      status: 'scheduled',
      attempts: [],
    };
    if (event.reason !== undefined) ledgerEvent.reason = event.reason;
    operation.event = ledgerEvent;
    this.later(delayMs, () => {
      ledgerEvent.occurredAt = new Date().toISOString();
      const body = JSON.stringify({
        eventId: ledgerEvent.eventId,
        type: ledgerEvent.type,
        paymentId: transaction.paymentId,
        operationId: operation.operationId,
        occurredAt: ledgerEvent.occurredAt,
        ...(ledgerEvent.reason !== undefined ? { reason: ledgerEvent.reason } : {}),
      });
      const url =
        failingReceiver && event.type === 'registration_succeeded'
          ? `${this.selfUrl()}${FAILING_RECEIVER_PATH}`
          : `${this.notificationsUrl(transaction.merchantId)}/events`;
      return this.attempt(transaction, ledgerEvent, url, body, 0);
    });
  }

  /** The merchant's notifications_url: its own setting, else the configured template. */
  notificationsUrl(merchantId: string): string {
    const own = this.ledger.merchants.get(merchantId)?.notificationsUrl;
    return (
      own ?? this.urlTemplate.replace('{merchantId}', encodeURIComponent(merchantId))
    ).replace(/\/+$/, '');
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async attempt(
    transaction: SandboxTransaction,
    event: LedgerEvent,
    url: string,
    body: string,
    retry: number,
  ): Promise<void> {
    const secret =
      this.ledger.merchants.get(transaction.merchantId)?.signingSecret ??
      this.config.PARTNER_SANDBOX_SIGNING_SECRET;
    const record: (typeof event.attempts)[number] = { at: new Date().toISOString(), url };
    event.attempts.push(record);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(secret, body) },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      record.status = response.status;
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) {
        event.status = 'delivered';
        return;
      }
      if (response.status < 500) {
        event.status = 'rejected';
        this.logger.warn(`the receiver refused ${event.type} ${event.eventId}: ${response.status}`);
        return;
      }
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
    }
    if (event.type === 'registration_succeeded') {
      // Rule 4: the partner cannot tell the service, so it rolls the registration back.
      event.status = 'aborted';
      if (transaction.state === 'registered') transaction.state = 'aborted';
      return;
    }
    const delay = this.retryDelays[retry];
    if (delay === undefined) {
      event.status = 'delivery_failed';
      return;
    }
    this.later(delay, () => this.attempt(transaction, event, url, body, retry + 1));
  }

  private later(delayMs: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work().catch((error: unknown) => this.logger.error(`event delivery: ${String(error)}`));
    }, delayMs);
    this.timers.add(timer);
  }

  private selfUrl(): string {
    const address = this.adapterHost.httpAdapter.getHttpServer().address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }
}
