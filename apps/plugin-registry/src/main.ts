import { runServiceMain } from '@comanda/runtime';
import { pluginRegistryService } from '@comanda/service-plugin-registry';

void runServiceMain(pluginRegistryService);
