import type { ServiceDefinition } from '@comanda/runtime';
import { PaymentsConfig } from './payments.config';
import { secretBoxFrom } from '@comanda/security';
import { AddAnnulmentRetries1767000000000 } from './persistence/add-annulment-retries.migration';
import { AddPreviousMerchantSecret1768000000000 } from './persistence/add-previous-merchant-secret.migration';
import { AddIgnoredEventRepeats1769000000000 } from './persistence/add-ignored-event-repeats.migration';
import { CreatePaymentTables1764000000000 } from './persistence/create-payment-tables.migration';
import { sealMerchantAnnouncements } from './persistence/seal-merchant-announcements.migration';
import { sealMerchantSecrets } from './persistence/seal-merchant-secrets.migration';
import { PaymentsModule } from './payments.module';

/**
 * Merchants and the payment saga with external partners under `/payments`, schema
 * `payments`. Tables are reached with SQL through repositories: no TypeORM entities.
 */
export const paymentsService: ServiceDefinition = {
  name: 'payments',
  configs: [PaymentsConfig],
  database: {
    schema: 'payments',
    entities: [],
    // Sealing the secrets stored (and announced) in clear before needs the key.
    migrations: (env) => {
      const box = secretBoxFrom(env, 'payments');
      return [
        CreatePaymentTables1764000000000,
        sealMerchantSecrets(box),
        sealMerchantAnnouncements(box),
        AddAnnulmentRetries1767000000000,
        AddPreviousMerchantSecret1768000000000,
        AddIgnoredEventRepeats1769000000000,
      ];
    },
  },
  module: PaymentsModule,
};
