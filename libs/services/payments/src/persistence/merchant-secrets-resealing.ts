import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { schemaOf, UnitOfWork } from '@comanda/persistence';
import { resealColumn, SecretBox } from '@comanda/security';
import { merchantSecretColumn } from './merchant.repository';

/**
 * After a change of COMANDA_SECRETS_KEY (the former one in COMANDA_PREVIOUS_SECRETS_KEY),
 * every merchant secret still sealed with the former key is sealed again with the current
 * one at start, before operations are sent, so the former key can be dropped after.
 */
@Injectable()
export class MerchantSecretsResealing implements OnApplicationBootstrap {
  private readonly logger = new Logger('payments.merchants');

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly secrets: SecretBox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.secrets.hasPreviousKey) return;
    const resealed = await this.unitOfWork.run((tx) =>
      resealColumn(tx, this.secrets, merchantSecretColumn(schemaOf(tx.connection))),
    );
    if (resealed > 0)
      this.logger.log(`re-sealed ${resealed} merchant secret(s) with the current key`);
  }
}
