import type { ServiceDefinition } from '@comanda/runtime';
import { CreatePaymentTables1764000000000 } from './persistence/create-payment-tables.migration';
import { PaymentsModule } from './payments.module';

/**
 * Merchants and the payment saga with external partners under `/payments`, schema
 * `payments`. Tables are reached with SQL through repositories: no TypeORM entities.
 */
export const paymentsService: ServiceDefinition = {
  name: 'payments',
  database: {
    schema: 'payments',
    entities: [],
    migrations: [CreatePaymentTables1764000000000],
  },
  module: PaymentsModule,
};
