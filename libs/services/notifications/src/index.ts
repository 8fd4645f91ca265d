export {
  notificationsService,
  NOTIFICATIONS_BODY_LIMIT_BYTES,
} from './notifications.service-definition';
export type { PartnerEvent } from './domain/partner-event';
