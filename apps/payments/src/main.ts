import { runServiceMain } from '@comanda/runtime';
import { paymentsService } from '@comanda/service-payments';

void runServiceMain(paymentsService);
