import type { MigrationInterface, QueryRunner } from 'typeorm';
import { EventTypes, merchantAnnouncementLabel } from '@comanda/contracts';
import { schemaOf } from '@comanda/persistence';
import type { SecretBox } from '@comanda/security';

/**
 * Announcements of merchants (`payment.merchant_configured`) carried the secret in clear
 * until ADR 0039. Those already published are of no further use and are deleted; those still
 * to send are sealed in place, as payments now writes them, so no secret stays in clear in
 * the outbox. `down` changes nothing: the receiver of every version takes sealed values.
 */
export function sealMerchantAnnouncements(box: SecretBox): new () => MigrationInterface {
  return class SealMerchantAnnouncements1766000000000 implements MigrationInterface {
    name = 'SealMerchantAnnouncements1766000000000';

    async up(runner: QueryRunner): Promise<void> {
      const outbox = `"${schemaOf(runner)}"."outbox"`;
      const inClear = `event_type = $1 AND event->'data' ? 'signingSecret'`;
      await runner.query(`DELETE FROM ${outbox} WHERE ${inClear} AND published_at IS NOT NULL`, [
        EventTypes.MerchantConfigured,
      ]);
      const pending = (await runner.query(
        `SELECT position, event->'data'->>'merchantId' AS "merchantId",
                event->'data'->>'signingSecret' AS secret
           FROM ${outbox} WHERE ${inClear} FOR UPDATE`,
        [EventTypes.MerchantConfigured],
      )) as Array<{ position: string; merchantId: string; secret: string }>;
      for (const row of pending) {
        await runner.query(
          `UPDATE ${outbox}
              SET event = jsonb_set(event #- '{data,signingSecret}', '{data,signingSecretSealed}', to_jsonb($2::text))
            WHERE position = $1`,
          [row.position, box.seal(row.secret, merchantAnnouncementLabel(row.merchantId))],
        );
      }
    }

    async down(): Promise<void> {
      // Sealed announcements are what every receiver since ADR 0039 takes: nothing to undo.
    }
  };
}
