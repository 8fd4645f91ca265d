import { runServiceMain } from '@comanda/runtime';
import { notificationsService } from '@comanda/service-notifications';

void runServiceMain(notificationsService);
