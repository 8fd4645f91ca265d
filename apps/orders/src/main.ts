import { runServiceMain } from '@comanda/runtime';
import { ordersService } from '@comanda/service-orders';

void runServiceMain(ordersService);
