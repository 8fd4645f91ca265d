import { runServiceMain } from '@comanda/runtime';
import { authService } from '@comanda/service-auth';

void runServiceMain(authService);
