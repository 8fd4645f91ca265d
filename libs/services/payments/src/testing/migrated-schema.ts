import type { DataSource } from 'typeorm';
import { MESSAGING_MIGRATIONS } from '@comanda/messaging';
import { openDatabase } from '@comanda/persistence';
import { paymentsService } from '../payments.service-definition';

/** Payments' schema in `url` migrated as the service does at start, with this key. */
export function openMigratedPaymentsSchema(url: string, secretsKey: string): Promise<DataSource> {
  const definition = paymentsService.database;
  if (!definition || typeof definition.migrations !== 'function') throw new Error('no migrations');
  return openDatabase({
    url,
    schema: 'payments',
    entities: [],
    migrations: [
      ...MESSAGING_MIGRATIONS,
      ...definition.migrations({ COMANDA_SECRETS_KEY: secretsKey }),
    ],
  });
}
