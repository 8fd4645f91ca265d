import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';
import { sealPlaintextColumn, unsealColumn, type SecretBox } from '@comanda/security';
import { merchantSecretColumn } from './merchant-secret.entity';

/**
 * Merchants' signing secrets were kept in clear: seal every existing one under
 * COMANDA_SECRETS_KEY into `signing_secret_sealed` and drop the clear column (ADR 0033).
 */
export function sealMerchantSecrets(box: SecretBox): new () => MigrationInterface {
  return class SealMerchantSecrets1765000000000 implements MigrationInterface {
    name = 'SealMerchantSecrets1765000000000';

    async up(runner: QueryRunner): Promise<void> {
      await sealPlaintextColumn(runner, box, {
        ...merchantSecretColumn(schemaOf(runner)),
        plaintext: 'signing_secret',
      });
    }

    async down(runner: QueryRunner): Promise<void> {
      await unsealColumn(runner, box, {
        ...merchantSecretColumn(schemaOf(runner)),
        plaintext: 'signing_secret',
      });
    }
  };
}
