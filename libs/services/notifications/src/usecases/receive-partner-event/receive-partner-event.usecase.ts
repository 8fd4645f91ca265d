import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventTypes } from '@comanda/contracts';
import { unstorableText } from '@comanda/http';
import { OutboxWriter } from '@comanda/messaging';
import { verifySignature } from '@comanda/outbound';
import type { Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import {
  MalformedPartnerEventError,
  PartnerEventIdReusedError,
  PartnerEventUnauthenticatedError,
} from '../../domain/notification.errors';
import { parsePartnerEvent } from '../../domain/partner-event';
import {
  MerchantSecretEntity,
  merchantPreviousSecretLabel,
  merchantSecretLabel,
} from '../../persistence/merchant-secret.entity';
import { PartnerEventEntity } from '../../persistence/partner-event.entity';
import type {
  ReceivedPartnerEvent,
  ReceivePartnerEventCommand,
} from './receive-partner-event.command';

/** Stands in for the secret of a merchant id nobody configured; matches no signature. */
const NO_MERCHANT_SECRET = randomBytes(32).toString('hex');

/**
 * Verifies a partner event against its merchant's secret, stores it once per
 * (merchant, eventId) and hands it to payments as `payment.partner_event_received`, all in
 * the caller's transaction: the partner hears 2xx only after both are committed.
 */
@Injectable()
export class ReceivePartnerEvent {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly secrets: SecretBox,
  ) {}

  async execute(tx: Tx, command: ReceivePartnerEventCommand): Promise<ReceivedPartnerEvent> {
    // An id PostgreSQL cannot even compare (U+0000) names no merchant.
    const merchant =
      unstorableText(command.merchantId).length === 0
        ? await tx.findOneBy(MerchantSecretEntity, { merchantId: command.merchantId })
        : null;
    if (!merchant) {
      // Judged as a known merchant's event signed with another secret (header, timestamp,
      // then a mismatch): the answer does not tell which merchant ids exist.
      const check = verifySignature(command.signature, command.rawBody, NO_MERCHANT_SECRET);
      throw new PartnerEventUnauthenticatedError(check.valid ? 'mismatch' : check.reason);
    }
    // A secret that does not open (another COMANDA_SECRETS_KEY) throws: 500, nothing stored.
    const secret = this.secrets.open(
      merchant.signingSecretSealed,
      merchantSecretLabel(merchant.merchantId),
    );
    let check = verifySignature(command.signature, command.rawBody, secret);
    // During a secret rollover (ADR 0070) the secret the last save replaced verifies too.
    if (
      !check.valid &&
      check.reason === 'mismatch' &&
      merchant.previousSecretSealed !== null &&
      merchant.previousSecretUntil !== null &&
      merchant.previousSecretUntil.getTime() > Date.now()
    ) {
      const previous = this.secrets.open(
        merchant.previousSecretSealed,
        merchantPreviousSecretLabel(merchant.merchantId),
      );
      check = verifySignature(command.signature, command.rawBody, previous);
    }
    if (!check.valid) throw new PartnerEventUnauthenticatedError(check.reason);

    const parsed = parsePartnerEvent(command.rawBody);
    if (!parsed.ok) throw new MalformedPartnerEventError(parsed.malformedJson, parsed.errors);
    const { event } = parsed;

    const rawBody = command.rawBody.toString('utf8');
    const inserted = await tx
      .createQueryBuilder()
      .insert()
      .into(PartnerEventEntity)
      .values({
        merchantId: merchant.merchantId,
        eventId: event.eventId,
        tenantId: merchant.tenantId,
        type: event.type,
        paymentId: event.paymentId,
        operationId: event.operationId,
        occurredAt: new Date(event.occurredAt),
        reason: event.reason ?? null,
        rawBody,
      })
      .orIgnore()
      .returning(['eventId'])
      .execute();
    const duplicate = (inserted.raw as unknown[]).length === 0;
    if (duplicate) {
      // A repeat is the same bytes (only the signature header changes on a retry); the same
      // id over another body is another event, which must not pass for the stored one.
      const stored = await tx.findOneByOrFail(PartnerEventEntity, {
        merchantId: merchant.merchantId,
        eventId: event.eventId,
      });
      if (stored.rawBody !== rawBody) throw new PartnerEventIdReusedError(event.eventId);
    } else {
      await this.outbox.add(tx, {
        type: EventTypes.PartnerEventReceived,
        tenantId: merchant.tenantId,
        subject: event.paymentId,
        data: { merchantId: merchant.merchantId, ...event },
      });
    }
    return { eventId: event.eventId, duplicate };
  }
}
