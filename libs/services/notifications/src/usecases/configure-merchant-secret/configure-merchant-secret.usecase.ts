import { Injectable, Logger } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { SecretBox } from '@comanda/security';
import {
  MerchantSecretEntity,
  merchantPreviousSecretLabel,
  merchantSecretLabel,
} from '../../persistence/merchant-secret.entity';

export interface ConfigureMerchantSecretCommand {
  merchantId: string;
  /** In clear: the consumer has opened the announced value. */
  signingSecret: string;
  /** The secret the save replaced, valid beside the new one until `until` (ADR 0070). */
  previous?: { secret: string; until: Date };
  tenantId: string;
  /** When payments configured the merchant (the event's `time`). */
  configuredAt: Date;
}

export type MerchantSecretOutcome = 'stored' | 'stale' | 'other_tenant';

/**
 * Keeps the newest secret payments announced for a merchant, sealed (ADR 0033). An
 * announcement older than the one kept (delivered late) changes nothing; so does one from
 * another tenant for a merchant id already taken, so no tenant can take over another's
 * partner events. The secret the save replaced is kept beside it for as long as payments
 * keeps it (ADR 0070), or dropped when the announcement carries none.
 */
@Injectable()
export class ConfigureMerchantSecret {
  private readonly logger = new Logger(ConfigureMerchantSecret.name);

  constructor(private readonly secrets: SecretBox) {}

  async execute(tx: Tx, command: ConfigureMerchantSecretCommand): Promise<MerchantSecretOutcome> {
    const known = await tx.findOne(MerchantSecretEntity, {
      where: { merchantId: command.merchantId },
      lock: { mode: 'pessimistic_write' },
    });
    if (known && known.tenantId !== command.tenantId) {
      this.logger.warn(
        `merchant ${command.merchantId} belongs to another tenant; the announcement of tenant ${command.tenantId} is ignored`,
      );
      return 'other_tenant';
    }
    if (known && known.configuredAt.getTime() > command.configuredAt.getTime()) return 'stale';
    await tx.upsert(
      MerchantSecretEntity,
      {
        merchantId: command.merchantId,
        tenantId: command.tenantId,
        signingSecretSealed: this.secrets.seal(
          command.signingSecret,
          merchantSecretLabel(command.merchantId),
        ),
        previousSecretSealed: command.previous
          ? this.secrets.seal(
              command.previous.secret,
              merchantPreviousSecretLabel(command.merchantId),
            )
          : null,
        previousSecretUntil: command.previous?.until ?? null,
        configuredAt: command.configuredAt,
      },
      ['merchantId'],
    );
    return 'stored';
  }
}
