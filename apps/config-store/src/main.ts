import { runServiceMain } from '@comanda/runtime';
import { configStoreService } from '@comanda/service-config-store';

void runServiceMain(configStoreService);
