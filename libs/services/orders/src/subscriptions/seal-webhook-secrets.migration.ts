import { sealColumnMigration } from '@comanda/runtime';
import type { SecretBox } from '@comanda/security';
import { webhookSecretColumn } from './webhook-subscription.entity';

/** Webhook secrets were kept in clear: sealed under COMANDA_SECRETS_KEY (ADR 0040). */
export function sealWebhookSecrets(box: SecretBox) {
  return sealColumnMigration({
    name: 'SealWebhookSecrets1791000000000',
    box,
    column: webhookSecretColumn,
    plaintext: 'secret',
  });
}
