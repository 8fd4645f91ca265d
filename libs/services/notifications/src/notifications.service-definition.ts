import { NOTIFICATIONS_BODY_LIMIT_BYTES } from '@comanda/contracts';
import type { ServiceDefinition } from '@comanda/runtime';
import { secretBoxFrom } from '@comanda/security';
import { NotificationsModule } from './notifications.module';
import { AddPreviousMerchantSecret1768000000000 } from './persistence/add-previous-merchant-secret.migration';
import { CreateNotificationTables1763900000000 } from './persistence/create-notification-tables.migration';
import { MerchantSecretEntity } from './persistence/merchant-secret.entity';
import { PartnerEventEntity } from './persistence/partner-event.entity';
import { sealMerchantSecrets } from './persistence/seal-merchant-secrets.migration';
import { sealRetainedAnnouncements } from './persistence/seal-retained-announcements.migration';

export { NOTIFICATIONS_BODY_LIMIT_BYTES };

/** The receiver of partner payment events, `/notifications/merchants/{id}/events`, schema `notifications`. */
export const notificationsService: ServiceDefinition = {
  name: 'notifications',
  database: {
    schema: 'notifications',
    entities: [MerchantSecretEntity, PartnerEventEntity],
    // Sealing the secrets kept in clear before needs the key.
    migrations: (env) => {
      const box = secretBoxFrom(env, 'notifications');
      return [
        CreateNotificationTables1763900000000,
        sealMerchantSecrets(box),
        sealRetainedAnnouncements(box),
        AddPreviousMerchantSecret1768000000000,
      ];
    },
  },
  module: NotificationsModule,
  // Partners sign their events; they carry neither a bearer token nor X-Api-Version.
  versionExemptPaths: ['/notifications/merchants/'],
  // The gateway applies the same limit to /notifications (SMALLER_SERVICE_BODY_LIMITS).
  bodyLimitBytes: NOTIFICATIONS_BODY_LIMIT_BYTES,
};
