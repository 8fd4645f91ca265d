import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';
import { addPreviousSecretColumns, dropPreviousSecretColumns } from '@comanda/security';

/**
 * A merchant keeps the secret a save replaced for the grace that save asked for (ADR 0070):
 * operations are signed with both meanwhile.
 */
export class AddPreviousMerchantSecret1768000000000 implements MigrationInterface {
  name = 'AddPreviousMerchantSecret1768000000000';

  async up(runner: QueryRunner): Promise<void> {
    await addPreviousSecretColumns(runner, `"${schemaOf(runner)}"."merchants"`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropPreviousSecretColumns(runner, `"${schemaOf(runner)}"."merchants"`);
  }
}
