import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@comanda/persistence';

/**
 * A payment lists at most `LISTED_IGNORED_EVENTS` ignored events; later ones are counted on
 * the last of them (`repeats`, `last_recorded_at`), so a partner that keeps posting events
 * the saga ignores cannot grow a payment without bound.
 */
export class AddIgnoredEventRepeats1769000000000 implements MigrationInterface {
  name = 'AddIgnoredEventRepeats1769000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      ALTER TABLE "${schema}"."payment_events"
        ADD COLUMN repeats integer NOT NULL DEFAULT 1,
        ADD COLUMN last_recorded_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      ALTER TABLE "${schema}"."payment_events"
        DROP COLUMN repeats,
        DROP COLUMN last_recorded_at`);
  }
}
