import { sealColumnMigration } from '@comanda/runtime';
import type { SecretBox } from '@comanda/security';
import { merchantSecretColumn } from './merchant-secret.entity';

/** Merchants' signing secrets were kept in clear: sealed under COMANDA_SECRETS_KEY (ADR 0033). */
export function sealMerchantSecrets(box: SecretBox) {
  return sealColumnMigration({
    name: 'SealMerchantSecrets1765000000000',
    box,
    column: merchantSecretColumn,
    plaintext: 'signing_secret',
  });
}
