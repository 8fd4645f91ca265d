import { runServiceMain } from '@comanda/runtime';
import { partnerSandboxService } from '@comanda/service-partner-sandbox';

void runServiceMain(partnerSandboxService);
