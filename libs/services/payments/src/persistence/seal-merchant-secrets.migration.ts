import type { MigrationInterface, QueryRunner } from 'typeorm';
import { EventTypes } from '@comanda/contracts';
import { schemaOf } from '@comanda/persistence';
import { sealPlaintextColumn, unsealColumn, type SecretBox } from '@comanda/security';
import { merchantSecretColumn } from './merchant.repository';

/**
 * Merchants' signing secrets were stored in clear: seal every existing one under
 * COMANDA_SECRETS_KEY into `signing_secret_sealed` and drop the clear column (ADR 0033).
 * Published `payment.merchant_configured` events kept in the outbox carry the secret in
 * clear too; they are of no further use and go with it (unpublished ones stay to be sent).
 */
export function sealMerchantSecrets(box: SecretBox): new () => MigrationInterface {
  return class SealMerchantSecrets1765000000000 implements MigrationInterface {
    name = 'SealMerchantSecrets1765000000000';

    async up(runner: QueryRunner): Promise<void> {
      const schema = schemaOf(runner);
      await sealPlaintextColumn(runner, box, {
        ...merchantSecretColumn(schema),
        plaintext: 'signing_secret',
      });
      await runner.query(
        `DELETE FROM "${schema}"."outbox" WHERE event_type = $1 AND published_at IS NOT NULL`,
        [EventTypes.MerchantConfigured],
      );
    }

    async down(runner: QueryRunner): Promise<void> {
      await unsealColumn(runner, box, {
        ...merchantSecretColumn(schemaOf(runner)),
        plaintext: 'signing_secret',
      });
    }
  };
}
