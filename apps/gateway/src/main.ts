import { runServiceMain } from '@comanda/runtime';
import { gatewayService } from '@comanda/service-gateway';

void runServiceMain(gatewayService);
