import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';
import { addPreviousSecretColumns, dropPreviousSecretColumns } from '@comanda/security';

/**
 * The receiver keeps the secret a merchant's save replaced, for the grace payments announced
 * with it (ADR 0070): events signed with either are taken meanwhile.
 */
export class AddPreviousMerchantSecret1768000000000 implements MigrationInterface {
  name = 'AddPreviousMerchantSecret1768000000000';

  async up(runner: QueryRunner): Promise<void> {
    await addPreviousSecretColumns(runner, `"${schemaOf(runner)}"."merchant_secrets"`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropPreviousSecretColumns(runner, `"${schemaOf(runner)}"."merchant_secrets"`);
  }
}
