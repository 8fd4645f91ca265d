import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LIMITS } from '../domain/limits';

/**
 * A basket keeps the currency its lines were priced in, so checkout can refuse it when the
 * store's currency changed since. Baskets started before have none (nothing to compare).
 */
export class AddBasketCurrency1793000000000 implements MigrationInterface {
  name = 'AddBasketCurrency1793000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE "${schemaOf(runner)}"."baskets" ADD COLUMN currency varchar(${LIMITS.currencyLength})`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "${schemaOf(runner)}"."baskets" DROP COLUMN currency`);
  }
}
