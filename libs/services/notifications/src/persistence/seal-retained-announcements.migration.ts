import type { MigrationInterface, QueryRunner } from 'typeorm';
import { EventTypes, merchantAnnouncementLabel } from '@comanda/contracts';
import { RETRY_TIMER } from '@comanda/messaging';
import { schemaOf } from '@comanda/persistence';
import type { SecretBox } from '@comanda/security';

/** A kept copy of an announcement, in `dead_letters.event` or a retry timer's `payload.event`. */
interface KeptAnnouncement {
  row: string;
  merchantId: string | null;
  secret: string;
}

/**
 * Announcements of merchants (`payment.merchant_configured`) carried the secret in clear
 * until ADR 0039. Notifications keeps copies of the events it could not handle yet: its dead
 * letters and its consumers' retries (timers `messaging.retry`, ADR 0032). Their secrets are
 * sealed in place, as payments now announces them, so a replay or a due retry still
 * configures the merchant and no secret stays in clear. A copy without a merchant id cannot
 * be bound to one: its secret is removed (such an event was refused anyway).
 * `down` changes nothing: the consumer of every version takes sealed values.
 */
export function sealRetainedAnnouncements(box: SecretBox): new () => MigrationInterface {
  return class SealRetainedAnnouncements1792000000000 implements MigrationInterface {
    name = 'SealRetainedAnnouncements1792000000000';

    async up(runner: QueryRunner): Promise<void> {
      const schema = schemaOf(runner);
      await sealKept(runner, box, {
        table: `"${schema}"."dead_letters"`,
        column: 'event',
        data: ['data'],
        where: `event_type = $1`,
        values: [EventTypes.MerchantConfigured],
      });
      await sealKept(runner, box, {
        table: `"${schema}"."timers"`,
        column: 'payload',
        data: ['event', 'data'],
        where: `name = $1 AND payload->'event'->>'type' = $2`,
        values: [RETRY_TIMER, EventTypes.MerchantConfigured],
      });
    }

    async down(): Promise<void> {
      // Sealed announcements are what every consumer since ADR 0039 takes: nothing to undo.
    }
  };
}

/** A jsonb path literal: `{event,data,signingSecret}`. */
function path(...names: string[]): string {
  return `'{${names.join(',')}}'`;
}

async function sealKept(
  runner: QueryRunner,
  box: SecretBox,
  at: {
    table: string;
    /** The jsonb column that holds the event. */
    column: string;
    /** Where the event's `data` is in that column. */
    data: string[];
    /** Which rows hold announcements (parameters from $1). */
    where: string;
    values: unknown[];
  },
): Promise<void> {
  const { table, column, data } = at;
  // Rows are locked and named by ctid: in this transaction, no one else moves them.
  const kept = (await runner.query(
    `SELECT ctid::text AS row, ${column} #>> ${path(...data, 'merchantId')} AS "merchantId",
            ${column} #>> ${path(...data, 'signingSecret')} AS secret
       FROM ${table}
      WHERE ${at.where} AND ${column} #> ${path(...data)} ? 'signingSecret'
        FOR UPDATE`,
    at.values,
  )) as KeptAnnouncement[];
  const withoutSecret = `${column} #- ${path(...data, 'signingSecret')}`;
  for (const { row, merchantId, secret } of kept) {
    if (merchantId === null) {
      await runner.query(`UPDATE ${table} SET ${column} = ${withoutSecret} WHERE ctid = $1::tid`, [
        row,
      ]);
      continue;
    }
    await runner.query(
      `UPDATE ${table}
          SET ${column} = jsonb_set(${withoutSecret}, ${path(...data, 'signingSecretSealed')}, to_jsonb($2::text))
        WHERE ctid = $1::tid`,
      [row, box.seal(secret, merchantAnnouncementLabel(merchantId))],
    );
  }
}
